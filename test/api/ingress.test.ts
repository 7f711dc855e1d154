// A service's ingress (docs/ingress.md): the field through the API and manifests, who may set it,
// the host claims across services and environments, and GET /api/services/{id}/ingress.
import { expect } from 'chai';
import { startWithRoles, createEnvironment } from '../support/fixtures.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createImage, createService, expectError, insertServer, limitedToken } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { HttpClient } from '../support/http-client.js';

describe('ingress: the service field and its status route', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let n = 0;
  const host = () => `app${++n}.stevedore.test`;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
  });
  after(() => svc.stop());

  it('an operator sets it; read back with the schema defaults (path /, tls auto); PATCH bumps the generation', async () => {
    const h = host();
    const created = await createService(operator, envId, { ingress: { hosts: [h], port: 8080 } });
    const got = await viewer.get(`/api/services/${created.id}`);
    expect(got.body.ingress).to.deep.equal({ hosts: [h], port: 8080, path: '/', tls: 'auto' });
    const patched = await operator.patch(`/api/services/${created.id}`, { ingress: { hosts: [h], port: 8080, path: '/api', tls: { secretRef: 'APP_CERT' }, redirectHttp: false } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.ingress).to.deep.equal({ hosts: [h], port: 8080, path: '/api', tls: { secretRef: 'APP_CERT' }, redirectHttp: false });
    expect(patched.body.generation).to.equal(2);
    const none = await createService(operator, envId);
    expect((await viewer.get(`/api/services/${none.id}`)).body.ingress).to.equal(null);
    const removed = await operator.patch(`/api/services/${created.id}`, { ingress: null });
    expect(removed.body.ingress).to.equal(null);
  });

  it('a viewer may not set it (403) and nothing changes', async () => {
    const s = await createService(operator, envId);
    const res = await viewer.patch(`/api/services/${s.id}`, { ingress: { hosts: [host()], port: 80 } });
    expect(res.status, res.text).to.equal(403);
    expect((await viewer.get(`/api/services/${s.id}`)).body.ingress).to.equal(null);
  });

  it('bad values are 400 naming the field, and nothing is written', async () => {
    const s = await createService(operator, envId);
    const bad: Array<[unknown, RegExp]> = [
      [{ hosts: ['not a host'], port: 80 }, /hosts/],
      [{ hosts: ['localhost'], port: 80 }, /hosts/],
      [{ hosts: ['*.example.com'], port: 80 }, /hosts/],
      [{ hosts: [], port: 80 }, /hosts/],
      [{ hosts: ['a.example.com'], port: 0 }, /port/],
      [{ hosts: ['a.example.com'], port: 65536 }, /port/],
      [{ hosts: ['a.example.com'] }, /port/],
      [{ hosts: ['a.example.com'], port: 80, path: 'api' }, /path/],
      [{ hosts: ['a.example.com'], port: 80, tls: 'on' }, /tls/],
      [{ hosts: ['a.example.com'], port: 80, tls: 'off', redirectHttp: true }, /redirectHttp/],
      [{ hosts: ['a.example.com', 'a.example.com'], port: 80 }, /hosts/],
    ];
    for (const [ingress, field] of bad) {
      const res = await operator.patch(`/api/services/${s.id}`, { ingress });
      expect(res.status, `${JSON.stringify(ingress)}: ${res.text}`).to.equal(400);
      expect(res.body.code).to.equal('VALIDATION_ERROR');
      expect(`${res.body.field} ${res.body.message}`, JSON.stringify(ingress)).to.match(field);
    }
    const after = await viewer.get(`/api/services/${s.id}`);
    expect(after.body).to.include({ ingress: null, generation: s.generation });
  });

  it('two services of one environment never share a host and path (409); another path is fine', async () => {
    const h = host();
    await createService(operator, envId, { ingress: { hosts: [h], port: 80 } });
    const clash = await operator.post(`/api/environments/${envId}/services`, { name: 'clash', containerImageId: (await createImage(operator, envId)).id, ingress: { hosts: ['other.stevedore.test', h.toUpperCase()], port: 80 } });
    expectError(clash, 409, 'CONFLICT', 'ingress.hosts.1');
    expect(clash.body.message).to.match(/already served by service/);
    expect((await viewer.get(`/api/environments/${envId}/services?limit=100`)).body.items.map((x: { name: string }) => x.name)).not.to.include('clash');
    await createService(operator, envId, { ingress: { hosts: [h], port: 80, path: '/api' } });
  });

  it("a host another environment's service serves is refused, on create and on PATCH", async () => {
    const h = host();
    const other = (await createEnvironment(admin)).id;
    await createService(admin, other, { ingress: { hosts: [h], port: 80 } });
    const taken = await operator.post(`/api/environments/${envId}/services`, { name: 'thief', containerImageId: (await createImage(operator, envId)).id, ingress: { hosts: [h], port: 80, path: '/elsewhere' } });
    expectError(taken, 409, 'CONFLICT', 'ingress.hosts.0');
    expect(taken.body.message).to.match(/another environment/);
    const s = await createService(operator, envId);
    expectError(await operator.patch(`/api/services/${s.id}`, { ingress: { hosts: [h], port: 80 } }), 409, 'CONFLICT', 'ingress.hosts.0');
  });

  it('ingressHttpPort and ingressHttpsPort are operations settings (80 and 443) only an admin changes', async () => {
    const got = await admin.get(`/api/environments/${envId}/settings/operations`);
    expect(got.body).to.include({ ingressHttpPort: 80, ingressHttpsPort: 443 });
    expect((await operator.patch(`/api/environments/${envId}/settings/operations`, { ingressHttpPort: 8080 })).status).to.equal(403);
    expectError(await admin.patch(`/api/environments/${envId}/settings/operations`, { ingressHttpsPort: 70000 }), 400, 'VALIDATION_ERROR');
    const changed = await admin.patch(`/api/environments/${envId}/settings/operations`, { ingressHttpPort: 8080 });
    expect(changed.body).to.include({ ingressHttpPort: 8080, ingressHttpsPort: 443 });
    await admin.patch(`/api/environments/${envId}/settings/operations`, { ingressHttpPort: 80 });
  });

  it('a manifest carries it: a host of another environment is refused naming file and line', async () => {
    const h = host();
    const other = await createEnvironment(admin);
    await createService(admin, other.id, { ingress: { hosts: [h], port: 80 } });
    const env = (await admin.get(`/api/environments/${envId}`)).body;
    const yaml = [
      'apiVersion: stevedore/v1', 'kind: ContainerImage', `metadata: {name: web-img, environment: ${env.name}}`, 'spec: {imageName: acme/web}', '---',
      'apiVersion: stevedore/v1', 'kind: Service', `metadata: {name: web-m, environment: ${env.name}}`,
      'spec:', '  image: web-img', '  imageTag: "1.0"', '  ingress:', `    hosts: [${h}]`, '    port: 80', '',
    ].join('\n');
    const res = await admin.post('/api/manifests/apply', { files: [{ path: 'web.yaml', content: yaml }] });
    expect(res.status, res.text).to.be.oneOf([400, 422]);
    expect(res.text).to.match(/another environment/);
    expect(res.text).to.match(/web\.yaml/);
    const applied = yaml.replace(h, host());
    const ok = await admin.post('/api/manifests/apply', { files: [{ path: 'web.yaml', content: applied }] });
    expect(ok.status, ok.text).to.equal(200);
    const list = (await viewer.get(`/api/environments/${envId}/services?limit=100`)).body.items;
    expect(list.find((x: { name: string }) => x.name === 'web-m').ingress.port).to.equal(80);
    // the same manifest again: its ingress (defaults left out) is no drift
    const again = await admin.post('/api/manifests/apply', { files: [{ path: 'web.yaml', content: applied }] });
    expect(again.status, again.text).to.equal(200);
    expect(again.body.changes, JSON.stringify(again.body.changes)).to.deep.equal([]);
    // no plan follows an ingress-only change: the apply tells the proxies (every replica hears it)
    const id = list.find((x: { name: string }) => x.name === 'web-m').id;
    const heard = async () => (await svc.services.events.since(0, envId, 1000)).filter((e) => e.type === 'ingress.changed' && e.data.serviceId === id);
    expect(await heard()).to.have.length(0);
    const moved = await admin.post('/api/manifests/apply', { files: [{ path: 'web.yaml', content: applied.replace('port: 80', 'port: 8080') }] });
    expect(moved.status, moved.text).to.equal(200);
    expect(await heard()).to.have.length(1);
  });

  it('a manifest without ingress puts nothing in its server\'s route table (the column holds JSON null; found by bench/chaos.ts)', async () => {
    const env = (await admin.get(`/api/environments/${envId}`)).body;
    const server = await insertServer(svc, envId);
    const yaml = [
      'apiVersion: stevedore/v1', 'kind: ContainerImage', `metadata: {name: plain-img, environment: ${env.name}}`, 'spec: {imageName: acme/plain}', '---',
      'apiVersion: stevedore/v1', 'kind: Service', `metadata: {name: plain-m, environment: ${env.name}}`,
      'spec:', '  image: plain-img', '  imageTag: "1.0"', '  deployments:', `    - server: ${server.name}`, '',
    ].join('\n');
    const res = await admin.post('/api/manifests/apply', { files: [{ path: 'plain.yaml', content: yaml }] });
    expect(res.status, res.text).to.equal(200);
    const { db } = svc.services;
    const [row] = (await db.raw("SELECT id, jsonb_typeof(ingress) AS kind FROM services WHERE environment_id = ? AND name = 'plain-m'", [envId])).rows;
    expect(row.kind, 'the manifest path writes JSON null').to.be.oneOf(['null', null]);
    // the proxy reconciler of the server reads this (it threw on the null before)
    expect(await svc.services.services.listIngressOnServer(server.id)).to.deep.equal([]);
    expect((await svc.services.services.listIngressClaims()).map((c) => c.serviceId)).to.not.include(row.id);
  });

  describe('GET /api/services/{id}/ingress', () => {
    const selfSigned = (cn: string) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'ingress-cert-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '30', '-subj', `/CN=${cn}`,
        '-addext', `subjectAltName=DNS:${cn}`, '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`], { stdio: 'ignore' });
      return { cert: readFileSync(`${dir}/cert.pem`, 'utf8'), key: readFileSync(`${dir}/key.pem`, 'utf8') };
    };

    it('404 for a service that does not exist; a service without ingress has no hosts', async () => {
      expectError(await viewer.get('/api/services/00000000-0000-4000-8000-000000000000/ingress'), 404, 'NOT_FOUND');
      const s = await createService(operator, envId);
      const res = await viewer.get(`/api/services/${s.id}/ingress`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ hosts: [] });
    });

    it('403 for a token limited to another environment; 400 for a malformed id', async () => {
      const s = await createService(operator, envId, { ingress: { hosts: [host()], port: 80 } });
      const other = (await createEnvironment(admin)).id;
      const me = (await admin.get('/api/auth/me')).body;
      const limited = await limitedToken(svc, admin, me.id ?? me.user?.id, [other]);
      const res = await limited.get(`/api/services/${s.id}/ingress`);
      expect(res.status, res.text).to.be.oneOf([403, 404]);
      expect((await viewer.get('/api/services/not-a-uuid/ingress')).status).to.be.oneOf([400, 404]);
    });

    it("per host: tls auto is not issued while no CA issued it, off is none, a secret's certificate issued with issuer and expiry, never its key", async () => {
      const [auto, off, secured, missing] = [host(), host(), host(), host()];
      const { cert, key } = selfSigned(secured);
      const secret = await admin.post(`/api/environments/${envId}/secrets`, { key: 'APP_TLS', value: `${cert}${key}` });
      expect(secret.status, secret.text).to.equal(201);
      const server = await insertServer(svc, envId);
      const a = await createService(operator, envId, { ingress: { hosts: [auto], port: 80 } });
      await operator.post(`/api/services/${a.id}/deployments`, { serverId: server.id, containerName: `c-${a.name}` });
      const got = await viewer.get(`/api/services/${a.id}/ingress`);
      expect(got.status, got.text).to.equal(200);
      expect(got.body.hosts).to.have.length(1);
      // nothing issued (no CA answers this test service): pending, or failed once an order was refused; never issued
      expect(got.body.hosts[0].host).to.equal(auto);
      expect(got.body.hosts[0].certificate).to.include({ issuer: null, notAfter: null });
      expect(got.body.hosts[0].certificate.state).to.be.oneOf(['pending', 'failed']);
      // the server row points nowhere: not routed, and it says why
      expect(got.body.hosts[0].servers).to.have.length(1);
      expect(got.body.hosts[0].servers[0]).to.include({ serverId: server.id, serverName: server.name, routed: false });
      expect(got.body.hosts[0].servers[0].message).to.match(/could not be asked/);

      const o = await createService(operator, envId, { ingress: { hosts: [off], port: 80, tls: 'off' } });
      expect((await viewer.get(`/api/services/${o.id}/ingress`)).body.hosts[0].certificate.state).to.equal('none');

      const t = await createService(operator, envId, { ingress: { hosts: [secured, missing], port: 80, tls: { secretRef: 'APP_TLS' } } });
      const res = await viewer.get(`/api/services/${t.id}/ingress`);
      const [ok, wrongHost] = res.body.hosts;
      expect(ok.certificate).to.include({ state: 'issued', issuer: `CN=${secured}`, error: null });
      expect(Date.parse(ok.certificate.notAfter) - Date.now()).to.be.within(29 * 86400_000, 31 * 86400_000);
      expect(wrongHost.certificate).to.include({ state: 'failed', error: `the certificate does not name ${missing}` });
      expect(res.text).not.to.include('PRIVATE KEY');
      expect(res.text).not.to.include(key.split('\n')[1]);

      const gone = await createService(operator, envId, { ingress: { hosts: [host()], port: 80, tls: { secretRef: 'NO_SUCH' } } });
      expect((await viewer.get(`/api/services/${gone.id}/ingress`)).body.hosts[0].certificate).to.include({ state: 'failed', error: 'no secret NO_SUCH in the environment' });
    });
  });
});
