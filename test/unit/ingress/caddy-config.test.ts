import { expect } from 'chai';
import { canonicalConfig, renderCaddyConfig, routeId, routesOf, type ProxyRoute } from '../../../reconcilers/proxy/caddy-config.js';
import { healthOfStatus, routeTableOf, upstreamOf, type ObservedContainer } from '../../../reconcilers/proxy/route-table.js';
import type { HostCertificate } from '../../../controller/ingress/certificates.js';

const PEM = { certificatePem: '-----BEGIN CERTIFICATE-----\nA\n-----END CERTIFICATE-----\n', keyPem: '-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n' };
const r = (o: Partial<ProxyRoute>): ProxyRoute => ({ host: 'app.stevedore.test', path: '/', upstreams: ['10.0.0.5:8080'], certificate: null, redirectHttp: false, serviceId: 'svc', ...o });
const servers = (c: any) => c.apps.http.servers;

describe('the proxy config (reconcilers/proxy/caddy-config.ts)', () => {
  it('a host forwards to the container and port; Caddy asks no CA itself; an unknown host is 404', () => {
    const c = renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({})] });
    expect(c.admin).to.deep.equal({ listen: 'localhost:2019' });
    const http = servers(c).http;
    expect(http.listen).to.deep.equal([':80']);
    expect(http.automatic_https).to.deep.equal({ disable: true });
    expect(http.routes[0]).to.deep.include({ '@id': 'stevedore-http-svc-app.stevedore.test', match: [{ host: ['app.stevedore.test'] }], terminal: true });
    expect(http.routes[0].handle[0]).to.deep.include({ handler: 'reverse_proxy', upstreams: [{ dial: '10.0.0.5:8080' }] });
    expect(http.routes.at(-1).handle[0]).to.include({ handler: 'static_response', status_code: 404 });
    expect(servers(c).https).to.equal(undefined);
    expect((c.apps as any).tls).to.equal(undefined);
  });

  it('a path prefix matches itself and below it, and is matched before / on the same host', () => {
    const c = renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ serviceId: 'web' }), r({ path: '/api', serviceId: 'api', upstreams: ['10.0.0.6:3000'] })] });
    const [api, web] = servers(c).http.routes;
    expect(api.match).to.deep.equal([{ host: ['app.stevedore.test'], path: ['/api', '/api/*'] }]);
    expect(api.handle[0].upstreams).to.deep.equal([{ dial: '10.0.0.6:3000' }]);
    expect(web.match).to.deep.equal([{ host: ['app.stevedore.test'] }]);
  });

  it('no container on the server: 503, not a route to nowhere', () => {
    const c = renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ upstreams: [] })] });
    expect(servers(c).http.routes[0].handle[0]).to.include({ handler: 'static_response', status_code: 503 });
  });

  it('with a certificate: HTTPS on 443 with it picked by SNI, and plain HTTP redirected (naming a port other than 443)', () => {
    const c = renderCaddyConfig({ httpsPort: 8443, acmeChallenge: null, routes: [r({ certificate: PEM, redirectHttp: true })] });
    const { http, https } = servers(c);
    expect(http.routes[0].handle).to.deep.equal([{ handler: 'static_response', status_code: 308, headers: { Location: ['https://{http.request.host}:8443{http.request.uri}'] } }]);
    expect(https.listen).to.deep.equal([':443']);
    expect(https.tls_connection_policies).to.deep.equal([{ match: { sni: ['app.stevedore.test'] }, certificate_selection: { any_tag: ['host:app.stevedore.test'] } }]);
    expect(https.routes[0].handle[0].upstreams).to.deep.equal([{ dial: '10.0.0.5:8080' }]);
    expect((c.apps as any).tls.certificates.load_pem).to.deep.equal([{ certificate: PEM.certificatePem, key: PEM.keyPem, tags: ['host:app.stevedore.test'] }]);
    const port443 = renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ certificate: PEM, redirectHttp: true })] });
    expect(servers(port443).http.routes[0].handle[0].headers.Location).to.deep.equal(['https://{http.request.host}{http.request.uri}']);
  });

  it('with a certificate and no redirect both serve; without a certificate (tls off or pending) only HTTP, never a redirect', () => {
    const both = servers(renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ certificate: PEM, redirectHttp: false })] }));
    expect(both.http.routes[0].handle[0].handler).to.equal('reverse_proxy');
    expect(both.https.routes[0].handle[0].handler).to.equal('reverse_proxy');
    const pending = servers(renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ certificate: null, redirectHttp: true })] }));
    expect(pending.http.routes[0].handle[0].handler).to.equal('reverse_proxy');
    expect(pending.https).to.equal(undefined);
  });

  it("the ACME challenge path goes to the controller's public URL first, on every host", () => {
    const c = renderCaddyConfig({ httpsPort: 443, acmeChallenge: { url: 'https://stevedore.example.com:8443' }, routes: [r({ certificate: PEM, redirectHttp: true })] });
    const first = servers(c).http.routes[0];
    expect(first.match).to.deep.equal([{ path: ['/.well-known/acme-challenge/*'] }]);
    expect(first.handle[0]).to.deep.equal({
      handler: 'reverse_proxy', upstreams: [{ dial: 'stevedore.example.com:8443' }], headers: { request: { set: { Host: ['stevedore.example.com:8443'] } } },
      transport: { protocol: 'http', tls: { server_name: 'stevedore.example.com' } },
    });
    const plain = servers(renderCaddyConfig({ httpsPort: 443, acmeChallenge: { url: 'http://10.0.0.1:8080' }, routes: [] })).http.routes[0].handle[0];
    expect(plain).to.deep.equal({ handler: 'reverse_proxy', upstreams: [{ dial: '10.0.0.1:8080' }], headers: { request: { set: { Host: ['10.0.0.1:8080'] } } } });
  });

  it('reads a live config back: each route id with its dials or its redirect; compares independent of key order', () => {
    const c = renderCaddyConfig({ httpsPort: 443, acmeChallenge: null, routes: [r({ certificate: PEM, redirectHttp: true })] });
    const live = routesOf(JSON.parse(JSON.stringify(c)));
    expect(live.get(routeId('http', r({})))).to.deep.equal({ dials: [], redirect: true });
    expect(live.get(routeId('https', r({})))).to.deep.equal({ dials: ['10.0.0.5:8080'], redirect: false });
    expect(canonicalConfig({ b: 1, a: [{ d: 1, c: 2 }] })).to.equal(canonicalConfig({ a: [{ c: 2, d: 1 }], b: 1 }));
    expect(routesOf(null).size).to.equal(0);
  });
});

describe('the route table of a server (reconcilers/proxy/route-table.ts)', () => {
  const c = (o: Partial<ObservedContainer>): ObservedContainer => ({
    id: 'old', name: 'web', labels: { 'stevedore.deployment-id': 'd1' }, running: true, health: 'healthy', created: 100, networks: { bridge: '172.17.0.2' }, ...o,
  });

  it("reads Docker's health from docker ps", () => {
    expect(healthOfStatus('Up 3 seconds (health: starting)')).to.equal('starting');
    expect(healthOfStatus('Up 3 minutes (healthy)')).to.equal('healthy');
    expect(healthOfStatus('Up 3 minutes (unhealthy)')).to.equal('unhealthy');
    expect(healthOfStatus('Up 3 minutes')).to.equal(null);
  });

  it('the newest healthy running container of the deployment; one starting or unhealthy never takes the route', () => {
    expect(upstreamOf('d1', [c({}), c({ id: 'new', name: 'web-stevedore-next', created: 200, health: 'starting' })])).to.include({ containerId: 'old' });
    expect(upstreamOf('d1', [c({}), c({ id: 'new', created: 200, health: 'unhealthy' })])).to.include({ containerId: 'old' });
    expect(upstreamOf('d1', [c({}), c({ id: 'new', created: 200, health: 'healthy' })])).to.include({ containerId: 'new' });
    expect(upstreamOf('d1', [c({ running: false })])).to.deep.equal({ problem: 'no container of the service runs on this server' });
    expect(upstreamOf('d1', [c({ health: 'unhealthy' })])).to.deep.equal({ problem: 'the container is unhealthy' });
    expect(upstreamOf('d2', [c({})])).to.have.property('problem');
  });

  it("by the environment's network before the default bridge", () => {
    expect(upstreamOf('d1', [c({ networks: { bridge: '172.17.0.2', 'stevedore-env': '172.20.0.3' } })])).to.include({ network: 'stevedore-env', address: '172.20.0.3' });
  });

  it('renders every host of every service, with the certificate whenever one is held, and the networks to join', () => {
    const issued: HostCertificate = { state: 'issued', issuer: 'CN=ca', notAfter: null, error: null, pem: PEM };
    const pending: HostCertificate = { state: 'pending', issuer: null, notAfter: null, error: null, pem: null };
    const { table, networks, upstreams } = routeTableOf([
      { service: { id: 's1', name: 'web', ingress: { hosts: ['a.example', 'b.example'], port: 8080 } }, deployments: [{ id: 'd1' }], certificates: new Map([['a.example', issued], ['b.example', pending]]) },
      { service: { id: 's2', name: 'api', ingress: { hosts: ['c.example'], port: 3000, tls: 'off' } }, deployments: [{ id: 'd2' }], certificates: new Map() },
    ], [c({ networks: { 'stevedore-env': '172.20.0.3' } })], { httpsPort: 443, acmeChallengeUrl: 'http://ctl:8080' });
    expect(table.acmeChallenge).to.deep.equal({ url: 'http://ctl:8080' });
    expect(table.routes).to.deep.equal([
      { host: 'a.example', path: '/', serviceId: 's1', certificate: PEM, upstreams: ['172.20.0.3:8080'], redirectHttp: true },
      { host: 'b.example', path: '/', serviceId: 's1', certificate: null, upstreams: ['172.20.0.3:8080'], redirectHttp: false },
      { host: 'c.example', path: '/', serviceId: 's2', certificate: null, upstreams: [], redirectHttp: false },
    ]);
    expect(networks).to.deep.equal(['stevedore-env']);
    // a renewal that failed keeps serving the certificate held
    const failedRenewal: HostCertificate = { state: 'failed', issuer: 'CN=ca', notAfter: null, error: 'the CA said no', pem: PEM };
    const kept = routeTableOf([{ service: { id: 's1', name: 'web', ingress: { hosts: ['a.example'], port: 80 } }, deployments: [{ id: 'd1' }], certificates: new Map([['a.example', failedRenewal]]) }],
      [c({})], { httpsPort: 443, acmeChallengeUrl: null });
    expect(kept.table.routes[0]).to.include({ certificate: PEM, redirectHttp: true });
    expect(upstreams.get('s2')).to.have.property('problem');
  });
});
