import { expect } from 'chai';
import { expandEnvRefs } from '../../../controller/manifests/expand-env.js';
import { loadManifests } from '../../../controller/manifests/load.js';
import { formatError, type ManifestError } from '../../../controller/manifests/types.js';

const expand = (content: string, env: Record<string, string>) => {
  const errors: ManifestError[] = [];
  const text = expandEnvRefs({ path: 'servers.yaml', content }, errors, env);
  return { text, errors: errors.map(formatError) };
};

describe('manifest ${env:NAME} expansion', () => {
  it('replaces every reference with the variable and leaves config-file references alone', () => {
    const r = expand('hostname: ${env:WEB1_HOST}\nimage: ${env:REG}/web:${env:REG}\nenv: {A: "${A}", F: "${fragment:x}"}\n', { WEB1_HOST: '10.0.0.11', REG: 'r:5000' });
    expect(r.errors).to.deep.equal([]);
    expect(r.text).to.equal('hostname: 10.0.0.11\nimage: r:5000/web:r:5000\nenv: {A: "${A}", F: "${fragment:x}"}\n');
  });

  it('keeps $${env:NAME} as the literal text ${env:NAME}', () => {
    expect(expand('a: $${env:X} ${env:X}\n', { X: 'x' }).text).to.equal('a: ${env:X} x\n');
  });

  it('reports a missing variable at its file, line and column, without the other variables\' values', () => {
    const r = expand('spec:\n  sshPort: 22\n  hostname: ${env:NOPE}\n', { OTHER: 'secret-value' });
    expect(r.errors).to.have.length(1);
    expect(r.errors[0]).to.match(/^servers\.yaml:3:13/);
    expect(r.errors[0]).to.include('environment variable NOPE is not set');
    expect(r.text).to.include('${env:NOPE}');
  });

  it('refuses a malformed name and a value with a line break (it would change the YAML)', () => {
    const r = expand('a: ${env:1BAD}\nb: ${env:KEY}\n', { KEY: 'line1\nline2' });
    expect(r.errors).to.have.length(2);
    expect(r.errors[0]).to.match(/^servers\.yaml:1:4.*not a valid environment variable name/);
    expect(r.errors[1]).to.match(/^servers\.yaml:2:4.*line break/);
    expect(r.errors[1]).not.to.include('line1');
  });

  it('runs before parsing: a folder with a missing variable loads nothing and says where', () => {
    const server = (host: string) => `apiVersion: stevedore/v1
kind: Environment
metadata: {name: prod}
spec: {}
---
apiVersion: stevedore/v1
kind: Server
metadata: {name: web-1, environment: prod}
spec:
  hostname: ${host}
  sshPort: \${env:FLEET_EXPAND_TEST_PORT}
`;
    process.env.FLEET_EXPAND_TEST_HOST = '10.0.0.11';
    process.env.FLEET_EXPAND_TEST_PORT = '2222';
    try {
      const ok = loadManifests([{ path: 'a.yaml', content: server('${env:FLEET_EXPAND_TEST_HOST}') }]);
      expect(ok.errors.map(formatError)).to.deep.equal([]);
      const spec = ok.manifests.find((m) => m.kind === 'Server')!.spec as Record<string, unknown>;
      expect(spec.hostname).to.equal('10.0.0.11');
      expect(spec.sshPort).to.equal(2222);   // expanded before parsing: a number, as if written
      const bad = loadManifests([{ path: 'a.yaml', content: server('${env:FLEET_EXPAND_TEST_MISSING}') }]);
      expect(bad.errors.map(formatError)).to.have.length(1);
      expect(formatError(bad.errors[0]!)).to.match(/^a\.yaml:10:13.*FLEET_EXPAND_TEST_MISSING is not set/);
    } finally {
      delete process.env.FLEET_EXPAND_TEST_HOST;
      delete process.env.FLEET_EXPAND_TEST_PORT;
    }
  });

  for (const origin of ['api', 'git'] as const) {
    it(`from the ${origin}, every reference is an error at its file:line and nothing is expanded`, () => {
      const errors: ManifestError[] = [];
      const text = expandEnvRefs({ path: 'vars.yaml', content: 'spec:\n  value: "${env:DATABASE_URL}"\n  other: $${env:KEPT}\n' }, errors,
        { DATABASE_URL: 'postgres://u:pw@db/x' }, origin);
      expect(errors.map(formatError)).to.have.length(1);
      expect(formatError(errors[0])).to.match(/^vars\.yaml:2:11: \$\{env:DATABASE_URL\}: manifests (from a Git source|sent to the API) cannot read the controller's environment/);
      expect(text).to.equal('spec:\n  value: "${env:DATABASE_URL}"\n  other: ${env:KEPT}\n');
      expect(JSON.stringify(errors)).not.to.include('pw@db');
    });
  }
});
