// Certificates from ACME against a real Pebble (test/support/pebble.ts) that validates HTTP-01 for
// real: it resolves the host through challtestsrv and fetches the key authorization from this
// controller's own /.well-known/acme-challenge/ route. The services' `ingress` field lands with the
// proxy (its column is added here when missing and written straight into the row, as the other
// API tests write rows they only need).
import { expect } from 'chai';
import crypto, { X509Certificate } from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { createService } from '../support/catalog-fixtures.js';
import { freePorts, startPebble, type TestPebble } from '../support/pebble.js';
import type { HttpClient } from '../support/http-client.js';
import { until } from '../support/until.js';
import { closedPort } from '../support/ports.js';
import { heldCertificate, heldCertificates, CERTIFICATE_CHANGED } from '../../controller/ingress/acme/held-certificates.js';
import { splitChain } from '../../controller/ingress/acme/certificate-facts.js';

const METRICS_TOKEN = 'metrics-token-for-certificates';

interface CertificateItem { host: string; state: string; issuer: string | null; serial: string | null; notAfter: string | null; error: string | null; lastAttemptAt: string | null; nextAttemptAt: string | null }

/** Pebble, then a controller on the port Pebble validates on. */
async function world(env: Record<string, string> = {}) {
  const [port] = await freePorts(1);
  const pebble = await startPebble({ httpPort: port });
  const svc = await startTestService({
    PORT: String(port), ACME_DIRECTORY_URL: pebble.directoryUrl, ACME_CA_CERT_FILE: pebble.caCertFile, ACME_EMAIL: 'ops@example.test',
    SCHEDULER_CERTIFICATE_SEC: '1', ACME_RETRY_BASE_SEC: '1', METRICS_TOKEN, ...env,
  });
  const admin = await bootstrapAdmin(svc.http);
  const environment = await createEnvironment(admin);
  return { pebble, svc, admin, environment };
}

/** What the proxy's field will write: a service that wants `hosts` with TLS auto. */
async function wantHosts(svc: TestService, admin: HttpClient, envId: string, hosts: string[]) {
  const service = await createService(admin, envId);
  await svc.services.db.raw('alter table services add column if not exists ingress jsonb');
  await svc.services.db('services').where({ id: service.id }).update({ ingress: JSON.stringify({ hosts, port: 8080 }) });
  return service;
}

const certificatesOf = async (client: HttpClient, envId: string): Promise<CertificateItem[]> => {
  const res = await client.get(`/api/environments/${envId}/certificates`);
  expect(res.status, res.text).to.equal(200);
  return res.body.items;
};
const certificateOf = async (client: HttpClient, envId: string, host: string) => (await certificatesOf(client, envId)).find((c) => c.host === host);

/** The chain verifies leaf → intermediates → Pebble's root, and the key is the leaf's. */
function expectVerifies(certPem: string, keyPem: string, rootPem: string, host: string) {
  const chain = splitChain(certPem).map((p) => new X509Certificate(p));
  const root = new X509Certificate(rootPem);
  expect(chain.length).to.be.greaterThan(1);
  expect(chain[0].checkHost(host)).to.equal(host);
  for (let i = 0; i < chain.length; i++) {
    const issuer = chain[i + 1] ?? root;
    expect(chain[i].checkIssued(issuer), `certificate ${i} is issued by the next`).to.equal(true);
    expect(chain[i].verify(issuer.publicKey), `certificate ${i} is signed by the next`).to.equal(true);
  }
  const pub = (k: crypto.KeyObject) => k.export({ type: 'spki', format: 'der' }).toString('hex');
  expect(pub(crypto.createPublicKey(keyPem))).to.equal(pub(chain[0].publicKey));
}

async function failedEvents(svc: TestService, envId: string) {
  return (await svc.services.events.since(0, envId, 1000)).filter((e) => e.type === 'certificate.failed');
}

describe('certificates from ACME (Pebble, HTTP-01 validated for real)', function () {
  this.timeout(120_000);
  let pebble: TestPebble;
  let svc: TestService;
  let admin: HttpClient;
  let viewer: HttpClient;
  let env: { id: string; name: string };
  const HOST = 'app.stevedore.test';
  const NOWHERE = 'nowhere.stevedore.test';

  before(async () => {
    ({ pebble, svc, admin, environment: env } = await world());
    viewer = (await userWithRole(admin, 'viewer')).client;
  });
  after(async () => {
    await svc?.stop();
    await pebble?.stop();
  });

  it('answers no challenge it does not hold: 404 in the error envelope, no token needed', async () => {
    const res = await svc.http.get('/.well-known/acme-challenge/no-such-token_123');
    expect(res.status, res.text).to.equal(404);
    expect(res.body.code).to.equal('NOT_FOUND');
    expect((await svc.http.get('/.well-known/acme-challenge/not%20a%20token')).status).to.equal(404);
  });

  it('issues a host\'s certificate within 30 s; Pebble fetched the answer from this controller; the chain verifies against Pebble\'s root', async () => {
    await pebble.addHost(HOST);
    const changed = new Promise<Record<string, unknown>>((resolve) => {
      const off = svc.services.events.subscribe((e) => { if (e.type === CERTIFICATE_CHANGED && e.data.host === HOST) { off(); resolve(e.data); } });
    });
    const started = Date.now();
    await wantHosts(svc, admin, env.id, [HOST]);
    const cert = await until('the certificate issued', async () => { const c = await certificateOf(admin, env.id, HOST); return c?.state === 'issued' && c; }, { timeoutMs: 30_000, everyMs: 200 });
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).to.be.below(30);
    expect(cert.error).to.equal(null);
    expect(cert.issuer).to.match(/Pebble/);
    expect(new Date(cert.notAfter!).getTime()).to.be.greaterThan(Date.now() + 30 * 86_400_000);

    const [installed] = await heldCertificates(svc.services, env.id, [HOST]);
    expect(installed.host).to.equal(HOST);
    expect(installed.notAfter.toISOString()).to.equal(new Date(cert.notAfter!).toISOString());
    expectVerifies(installed.certPem, installed.keyPem, await pebble.root(), HOST);
    expect((await changed).serial).to.equal(cert.serial);
    expect(await heldCertificate(svc.services, env.id, HOST)).to.deep.equal({
      state: 'issued', issuer: cert.issuer, notAfter: cert.notAfter, error: null, pem: { certificatePem: installed.certPem, keyPem: installed.keyPem },
    });

    // the CA's validation went through the route, anonymously, and the challenge is gone with its order
    const metrics = await svc.http.get('/metrics', { token: METRICS_TOKEN });
    expect(metrics.text).to.match(/stevedore_http_requests_total\{method="GET",route="\/\.well-known\/acme-challenge\/\{token\}",status="200"\} [1-9]/);
    expect(Number((await svc.services.db('acme_challenges').count({ n: '*' }).first())?.n)).to.equal(0);
  });

  it('never answers or stores the key in the clear; a viewer reads the list', async () => {
    const [installed] = await heldCertificates(svc.services, env.id, [HOST]);
    const keyBody = installed.keyPem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
    const list = await viewer.get(`/api/environments/${env.id}/certificates`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.items.map((c: CertificateItem) => c.host)).to.include(HOST);
    for (const res of [list, await admin.get(`/api/environments/${env.id}/certificates`), await admin.get('/api/notifications?limit=200')]) {
      expect(res.text).to.not.include('PRIVATE KEY');
      expect(res.text).to.not.include(keyBody.slice(0, 40));
    }
    const row = await svc.services.db('certificates').where({ environmentId: env.id, host: HOST }).first();
    expect(row.keySealed).to.match(/^v1:/);
    expect(JSON.stringify(row)).to.not.include('PRIVATE KEY');
    expect(svc.logs.join('')).to.not.include(keyBody.slice(0, 40));
    expect((await svc.http.get(`/api/environments/${env.id}/certificates`)).status).to.equal(401);
  });

  it('/metrics gives the expiry of each certificate held, behind METRICS_TOKEN', async () => {
    const cert = (await certificateOf(admin, env.id, HOST))!;
    const metrics = await svc.http.get('/metrics', { token: METRICS_TOKEN });
    const line = metrics.text.split('\n').find((l) => l.startsWith('stevedore_certificate_expiry_timestamp_seconds{') && l.includes(`host="${HOST}"`));
    expect(line, metrics.text.slice(0, 500)).to.equal(`stevedore_certificate_expiry_timestamp_seconds{environment="${env.name}",host="${HOST}"} ${Math.floor(new Date(cert.notAfter!).getTime() / 1000)}`);
  });

  it('a host the CA cannot validate shows the CA\'s error, is retried with backoff and raises exactly one notification', async () => {
    await wantHosts(svc, admin, env.id, [NOWHERE]);
    const failed = await until('the order failed', async () => { const c = await certificateOf(admin, env.id, NOWHERE); return c?.state === 'failed' && c; }, { timeoutMs: 30_000, everyMs: 200 });
    // Pebble's words: it looked the host up through challtestsrv, which knows it not
    expect(failed.error).to.match(/could not resolve URL "http:\/\/nowhere\.stevedore\.test:\d+\/\.well-known\/acme-challenge\//);
    expect(failed.notAfter).to.equal(null);
    expect(await heldCertificates(svc.services, env.id, [NOWHERE])).to.deep.equal([]);
    expect(await heldCertificate(svc.services, env.id, NOWHERE)).to.deep.include({ state: 'failed', error: failed.error, notAfter: null, pem: null });
    // two more attempts fail the same way (a positive signal: lastAttemptAt moves on)
    let attempts = 0;
    let last = failed.lastAttemptAt;
    await until('two more failed attempts', async () => {
      const c = (await certificateOf(admin, env.id, NOWHERE))!;
      if (c.state === 'failed' && c.lastAttemptAt !== last) { attempts++; last = c.lastAttemptAt; }
      return attempts >= 2;
    }, { timeoutMs: 30_000, everyMs: 100 });
    const events = await failedEvents(svc, env.id);
    expect(events, 'one event for one run of failures').to.have.length(1);
    expect(events[0].data).to.include({ host: NOWHERE });
    const notes = await until('the notification', async () => {
      const items = (await admin.get(`/api/notifications?category=certificate&environmentId=${env.id}`)).body.items;
      return items.length > 0 && items;
    }, { timeoutMs: 10_000 });
    expect(notes).to.have.length(1);
    expect(notes[0].type).to.equal('certificate.failed');
    expect(notes[0].message).to.include(NOWHERE).and.include(failed.error!.slice(0, 30));
    // the host that had its certificate keeps it
    expect((await certificateOf(admin, env.id, HOST))!.state).to.equal('issued');
  });

  it('forgets the certificate of a host no service wants any more', async () => {
    await svc.services.db('services').whereRaw("ingress->'hosts' \\? ?", [NOWHERE]).update({ ingress: null });
    await until('the host gone from the list', async () => !(await certificatesOf(admin, env.id)).some((c) => c.host === NOWHERE), { timeoutMs: 10_000, everyMs: 100 });
    expect(await svc.services.db('certificates').where({ environmentId: env.id, host: NOWHERE }).first()).to.equal(undefined);
    expect((await certificatesOf(admin, env.id)).map((c) => c.host)).to.deep.equal([HOST]);
  });
});

describe('certificate renewal (Pebble)', function () {
  this.timeout(120_000);
  let pebble: TestPebble;
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  const HOST = 'renew.stevedore.test';

  // Pebble's certificates last years: a renewal window longer than that makes every one due at once
  before(async () => { ({ pebble, svc, admin, environment: env } = await world({ ACME_RENEW_BEFORE_DAYS: '36500', SCHEDULER_CERTIFICATE_SEC: '2' })); });
  after(async () => {
    await svc?.stop();
    await pebble?.stop();
  });

  it('renews a certificate whose notAfter is within the window; a renewal the CA refuses keeps the previous certificate, shows why and notifies once', async () => {
    await pebble.addHost(HOST);
    await wantHosts(svc, admin, env.id, [HOST]);
    const first = await until('the first certificate', async () => { const c = await certificateOf(admin, env.id, HOST); return c?.serial && c; }, { timeoutMs: 30_000, everyMs: 200 });
    const renewed = await until('a renewed certificate', async () => {
      const c = await certificateOf(admin, env.id, HOST);
      return c?.state === 'issued' && c.serial !== first.serial && c;
    }, { timeoutMs: 30_000, everyMs: 200 });
    const [held] = await heldCertificates(svc.services, env.id, [HOST]);
    expectVerifies(held.certPem, held.keyPem, await pebble.root(), HOST);
    expect(new X509Certificate(splitChain(held.certPem)[0]).serialNumber).to.equal(renewed.serial);

    // the host stops resolving: the next renewal is refused by the CA
    await pebble.clearHost(HOST);
    const failed = await until('the renewal failed', async () => { const c = await certificateOf(admin, env.id, HOST); return c?.state === 'failed' && c; }, { timeoutMs: 30_000, everyMs: 200 });
    expect(failed.error).to.match(/could not resolve URL "http:\/\/renew\.stevedore\.test:\d+\/\.well-known\/acme-challenge\//);
    const [kept] = await heldCertificates(svc.services, env.id, [HOST]);
    const keptSerial = new X509Certificate(splitChain(kept.certPem)[0]).serialNumber;
    expect(failed.serial).to.equal(keptSerial);
    expect(failed.notAfter).to.not.equal(null);
    let attempts = 0;
    let last = failed.lastAttemptAt;
    await until('two more failed attempts', async () => {
      const c = (await certificateOf(admin, env.id, HOST))!;
      if (c.state === 'failed' && c.lastAttemptAt !== last) { attempts++; last = c.lastAttemptAt; }
      return attempts >= 2;
    }, { timeoutMs: 30_000, everyMs: 100 });
    expect((await heldCertificates(svc.services, env.id, [HOST]))[0].certPem).to.equal(kept.certPem);
    // the proxy goes on serving the certificate it had
    expect(await heldCertificate(svc.services, env.id, HOST)).to.deep.include({ state: 'failed', notAfter: failed.notAfter, pem: { certificatePem: kept.certPem, keyPem: kept.keyPem } });
    expect(await failedEvents(svc, env.id)).to.have.length(1);
    const notes = await until('the notification', async () => {
      const items = (await admin.get(`/api/notifications?category=certificate&environmentId=${env.id}`)).body.items;
      return items.length > 0 && items;
    }, { timeoutMs: 10_000 });
    expect(notes).to.have.length(1);
    expect(notes[0].message).to.include('could not be renewed');
  });
});

describe('certificate renewal without an ACME_EMAIL (Pebble)', function () {
  this.timeout(120_000);
  let pebble: TestPebble;
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  const HOST = 'anonymous-account.stevedore.test';

  before(async () => { ({ pebble, svc, admin, environment: env } = await world({ ACME_EMAIL: '', ACME_RENEW_BEFORE_DAYS: '36500', SCHEDULER_CERTIFICATE_SEC: '2' })); });
  after(async () => {
    await svc?.stop();
    await pebble?.stop();
  });

  // the second order finds its account already made: it must look the account up, not send the
  // CA an update with nothing to change (which Pebble, as RFC 8555 lets it, refuses)
  it('orders again with the account it made: a renewal with no contact address is issued', async () => {
    await pebble.addHost(HOST);
    await wantHosts(svc, admin, env.id, [HOST]);
    const first = await until('the first certificate', async () => { const c = await certificateOf(admin, env.id, HOST); return c?.serial && c; }, { timeoutMs: 30_000, everyMs: 200 });
    const renewed = await until('a renewed certificate', async () => {
      const c = await certificateOf(admin, env.id, HOST);
      if (c?.state === 'failed') throw new Error(`the renewal failed: ${c.error}`);
      return c?.state === 'issued' && c.serial !== first.serial && c;
    }, { timeoutMs: 30_000, everyMs: 200 });
    expect(renewed.error).to.equal(null);
  });
});

describe('certificates: the ACME directory behind the outgoing guard', function () {
  this.timeout(90_000);
  let svc: TestService;
  afterEach(async () => { await svc?.stop(); });

  it('refuses a CA on loopback that the allow-list does not name, before connecting', async () => {
    svc = await startTestService({ OUTGOING_ALLOW_LIST: '', ACME_DIRECTORY_URL: 'https://127.0.0.1:9/dir', SCHEDULER_CERTIFICATE_SEC: '1' });
    const admin = await bootstrapAdmin(svc.http);
    const env = await createEnvironment(admin);
    await wantHosts(svc, admin, env.id, ['guarded.stevedore.test']);
    const failed = await until('the order refused', async () => { const c = await certificateOf(admin, env.id, 'guarded.stevedore.test'); return c?.state === 'failed' && c; }, { timeoutMs: 30_000, everyMs: 200 });
    expect(failed.error).to.equal('refused: 127.0.0.1 resolves to a loopback address (127.0.0.1); an admin may allow it in the system setting outgoingAllowList');
  });

  it('says a directory that does not answer did not answer, and keeps trying', async () => {
    const directory = `${(await closedPort()).replace('http:', 'https:')}/dir`;
    svc = await startTestService({ ACME_DIRECTORY_URL: directory, SCHEDULER_CERTIFICATE_SEC: '1' });
    const admin = await bootstrapAdmin(svc.http);
    const env = await createEnvironment(admin);
    await wantHosts(svc, admin, env.id, ['unanswered.stevedore.test']);
    const failed = await until('the order failed', async () => { const c = await certificateOf(admin, env.id, 'unanswered.stevedore.test'); return c?.state === 'failed' && c; }, { timeoutMs: 60_000, everyMs: 200 });
    expect(failed.error).to.equal(`no answer from ${directory}`);
    expect(new Date(failed.nextAttemptAt!).getTime()).to.be.greaterThan(new Date(failed.lastAttemptAt!).getTime());
  });
});
