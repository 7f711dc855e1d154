import { expect } from 'chai';
import { claimConflict, ingressProblem, resolveIngress, type IngressClaim } from '../../../controller/model/ingress.js';

describe('ingress rules (controller/model/ingress.ts)', () => {
  it('defaults: path /, tls auto, redirect when TLS and not without; hosts compared in lower case', () => {
    expect(resolveIngress({ hosts: ['App.Example.com'], port: 80 })).to.deep.equal({ hosts: ['app.example.com'], port: 80, path: '/', tls: 'auto', redirectHttp: true });
    expect(resolveIngress({ hosts: ['a.example'], port: 80, tls: 'off' }).redirectHttp).to.equal(false);
    expect(resolveIngress({ hosts: ['a.example'], port: 80, tls: { secretRef: 'cert' } }).redirectHttp).to.equal(true);
    expect(resolveIngress({ hosts: ['a.example'], port: 80, redirectHttp: false }).redirectHttp).to.equal(false);
  });

  it('host names must be DNS names of two labels or more, each listed once', () => {
    for (const ok of ['app.stevedore.test', 'a-b.c.example', 'x1.io', 'APP.Example.COM']) expect(ingressProblem({ hosts: [ok], port: 80 }), ok).to.equal(null);
    for (const bad of ['localhost', '*.example.com', '-a.example.com', 'a-.example.com', 'a..example.com', 'a_b.example.com', 'exa mple.com', `${'a'.repeat(64)}.com`, 'http://a.com']) {
      expect(ingressProblem({ hosts: ['ok.example.com', bad], port: 80 }), bad).to.deep.include({ field: 'ingress.hosts.1' });
    }
    expect(ingressProblem({ hosts: ['a.example.com', 'A.example.com'], port: 80 })!.message).to.match(/listed twice/);
  });

  it('a path is a prefix without a trailing slash or query; a redirect needs TLS', () => {
    for (const ok of ['/', '/api', '/api/v1']) expect(ingressProblem({ hosts: ['a.example'], port: 80, path: ok }), ok).to.equal(null);
    for (const bad of ['api', '/api/', '/a?b', '/a b', '//']) expect(ingressProblem({ hosts: ['a.example'], port: 80, path: bad }), bad).to.deep.include({ field: 'ingress.path' });
    expect(ingressProblem({ hosts: ['a.example'], port: 80, tls: 'off', redirectHttp: true })).to.deep.include({ field: 'ingress.redirectHttp' });
  });

  describe('claims', () => {
    const claim = (environmentId: string, serviceId: string, hosts: string[], path?: string): IngressClaim =>
      ({ environmentId, serviceId, serviceName: serviceId, ingress: { hosts, port: 80, ...(path && { path }) } });

    it('another environment never takes a host, whatever the path', () => {
      const problem = claimConflict(claim('prod', 'web', ['b.example', 'a.example'], '/x'), [{ ...claim('staging', 'site', ['A.example']), environmentName: 'staging' }]);
      expect(problem).to.deep.equal({ field: 'ingress.hosts.1', message: "ingress host 'a.example' is served by a service of another environment (staging): one environment never takes another's traffic" });
    });

    it('within an environment: the same host on another path is fine, the same host and path is not; the service itself does not count', () => {
      const others = [claim('prod', 'api', ['a.example'], '/api')];
      expect(claimConflict(claim('prod', 'web', ['a.example']), others)).to.equal(null);
      expect(claimConflict(claim('prod', 'web', ['a.example'], '/api'), others)!.message).to.match(/already served by service api/);
      expect(claimConflict(claim('prod', 'api', ['a.example'], '/api'), others)).to.equal(null);
      // a manifest's claim has no id: its environment and name are its identity
      expect(claimConflict({ ...claim('prod', 'api', ['a.example'], '/api'), serviceId: null }, [{ ...others[0], serviceId: null }])).to.equal(null);
    });
  });
});
