import { newSshKeyPair } from '../support/ssh-key.js';
import { parsePrivateKey } from '../../controller/servers/ssh-key.js';
import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { generateApiToken, sha256Hex, tokenPrefixOf } from '../../controller/crypto/api-token.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { until } from '../support/until.js';

const newKey = () => newSshKeyPair().private;

describe('servers API', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let adminUserId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    adminUserId = (await admin.get('/api/auth/me')).body.id;
  });
  after(() => svc.stop());

  const create = (body: Record<string, unknown>, client = admin, env = envId) => client.post(`/api/environments/${env}/servers`, body);

  it('creates a server with defaults taken from the environment settings and reads it back with health', async () => {
    await admin.patch(`/api/environments/${envId}/settings/general`, { sshUser: 'deploy' });
    await admin.patch(`/api/environments/${envId}/settings/operations`, { defaultMetricsMode: 'ssh' });
    const res = await create({ name: 'web-1', hostname: 'web-1.internal', tags: ['web', 'eu'] });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ name: 'web-1', hostname: 'web-1.internal', sshPort: 22, sshUser: 'deploy', dockerMode: 'ssh', metricsMode: 'ssh', hostKeyFingerprint: null, environmentId: envId });
    expect(res.body.tags).to.deep.equal(['web', 'eu']);
    expect(res.body.health).to.deep.equal({ status: 'unknown', checkedAt: null, message: null });
    const got = await viewer.get(`/api/servers/${res.body.id}`);
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(res.body);
    const withServices = await viewer.get(`/api/servers/${res.body.id}?includeServices=true`);
    expect(withServices.body.services).to.deep.equal([]);
  });

  it('lists the environment servers by name with pagination', async () => {
    await create({ name: 'a-first', hostname: '10.0.0.2', sshPort: 2222 });
    const list = await viewer.get(`/api/environments/${envId}/servers?limit=1`);
    expect(list.status).to.equal(200);
    expect(list.body).to.include({ total: 2, limit: 1, offset: 0 });
    expect(list.body.items.map((s: { name: string }) => s.name)).to.deep.equal(['a-first']);
  });

  it('rejects hostnames carrying shell metacharacters, spaces or newlines, and bad ports, naming the field', async () => {
    for (const hostname of ['$(touch /tmp/pwned)', 'a;b', 'host name', 'x\ny', '-oProxyCommand=sh', "it's", 'a`id`']) {
      const res = await create({ name: `h-${Math.random().toString(36).slice(2, 8)}`, hostname });
      expect(res.status, hostname).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'hostname' });
    }
    for (const sshPort of [0, 65536, '22', 2.5]) {
      const res = await create({ name: 'p', hostname: 'h.example', sshPort });
      expect(res.status).to.equal(400);
      expect(res.body.field).to.equal('sshPort');
    }
    const badName = await create({ name: 'bad name;', hostname: 'h.example' });
    expect(badName.body.field).to.equal('name');
    const ipv6 = await create({ name: 'v6', hostname: 'fe80::1' });
    expect(ipv6.status).to.equal(201);
  });

  it('answers 409 for a duplicate name in the same environment but allows it in another', async () => {
    const dup = await create({ name: 'web-1', hostname: 'other.internal' });
    expect(dup.status).to.equal(409);
    expect(dup.body.code).to.equal('CONFLICT');
    const other = (await createEnvironment(admin)).id;
    expect((await create({ name: 'web-1', hostname: 'other.internal' }, admin, other)).status).to.equal(201);
  });

  it('refuses read-only fields on create and update with 422 and updates writable ones', async () => {
    const srv = (await create({ name: 'ro', hostname: 'ro.internal' })).body;
    for (const body of [{ hostKeyFingerprint: 'SHA256:x' }, { health: { status: 'healthy' } }, { id: srv.id }]) {
      const res = await admin.patch(`/api/servers/${srv.id}`, body);
      expect(res.status).to.equal(422);
      expect(res.body.code).to.equal('READONLY_FIELD');
    }
    expect((await create({ name: 'ro2', hostname: 'h.internal', hostKeyFingerprint: 'SHA256:x' })).status).to.equal(422);
    const upd = await admin.patch(`/api/servers/${srv.id}`, { hostname: 'ro-2.internal', tags: ['x'] });
    expect(upd.status).to.equal(200);
    expect(upd.body).to.include({ hostname: 'ro-2.internal', generation: 2 });
    expect(upd.body.tags).to.deep.equal(['x']);
    const bad = await admin.patch(`/api/servers/${srv.id}`, { hostname: 'a|b' });
    expect(bad.status).to.equal(400);
  });

  it('answers 404 for unknown servers and environments', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await viewer.get(`/api/servers/${missing}`)).status).to.equal(404);
    expect((await viewer.get('/api/servers/not-a-uuid')).status).to.equal(404);
    expect((await admin.patch(`/api/servers/${missing}`, { hostname: 'x.y' })).status).to.equal(404);
    expect((await admin.delete(`/api/servers/${missing}`)).status).to.equal(404);
    expect((await viewer.get(`/api/environments/${missing}/servers`)).status).to.equal(404);
    expect((await operator.post(`/api/servers/${missing}/health`, {})).status).to.equal(404);
  });

  it('lets only admins write servers and operators run live actions; env-limited tokens only reach env routes', async () => {
    const srv = (await create({ name: 'roles', hostname: 'roles.internal' })).body;
    expect((await create({ name: 'x1', hostname: 'x.internal' }, operator)).status).to.equal(403);
    expect((await operator.patch(`/api/servers/${srv.id}`, { hostname: 'y.internal' })).status).to.equal(403);
    expect((await operator.delete(`/api/servers/${srv.id}`)).status).to.equal(403);
    expect((await viewer.post(`/api/servers/${srv.id}/health`, {})).status).to.equal(403);
    expect((await viewer.post(`/api/servers/${srv.id}/metrics-mode`, { mode: 'agent' })).status).to.equal(403);
    expect((await viewer.get(`/api/servers/${srv.id}/processes`)).status).to.equal(403);
    expect((await operator.get(`/api/environments/${envId}/ssh-key`)).status).to.equal(403);
    // the token routes live on another branch: mint an environment-limited token the way they store one
    const token = generateApiToken();
    await svc.services.apiTokens.insert({ name: 'limited', tokenHash: sha256Hex(token), tokenPrefix: tokenPrefixOf(token), ownerUserId: adminUserId, environmentIds: [envId] });
    const limited = admin.withToken(token);
    expect((await limited.get(`/api/environments/${envId}/servers`)).status).to.equal(200);
    const item = await limited.get(`/api/servers/${srv.id}`);
    expect(item.status).to.equal(403);
    expect(item.body.code).to.equal('FORBIDDEN_SCOPE');
    // to agent would install the agent on the (unreachable) server: ssh only changes the mode
    const mm = await operator.post(`/api/servers/${srv.id}/metrics-mode`, { mode: 'ssh' });
    expect(mm.status).to.equal(200);
    expect(mm.body.metricsMode).to.equal('ssh');
    expect((await operator.post(`/api/servers/${srv.id}/metrics-mode`, { mode: 'sometimes' })).status).to.equal(400);
    const del = await admin.delete(`/api/servers/${srv.id}`);
    expect(del.status).to.equal(204);
    expect((await viewer.get(`/api/servers/${srv.id}`)).status).to.equal(404);
    const audit = await svc.services.db('audit_logs').where({ resourceId: srv.id }).orderBy('id').pluck('action');
    expect(audit).to.include.members(['setServerMetricsMode', 'deleteServer']);
  });

  it('stores the environment SSH key sealed, shows only its public half and fingerprint, and removes it', async () => {
    const empty = await admin.get(`/api/environments/${envId}/ssh-key`);
    expect(empty.body).to.include({ configured: false, publicKey: null, fingerprint: null });
    const key = newKey();
    const put = await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: key });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.publicKey).to.match(/^ssh-ed25519 [A-Za-z0-9+/=]+$/);
    expect(put.body.fingerprint).to.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(put.text).to.not.include('PRIVATE');
    const row = await svc.services.db('environments').where({ id: envId }).first();
    expect(row.sshPrivateKeySealed).to.match(/^v1:/);
    expect(row.sshPrivateKeySealed).to.not.include('PRIVATE KEY');
    expect(svc.services.secretBox.open(row.sshPrivateKeySealed)).to.equal(key);
    const get = await admin.get(`/api/environments/${envId}/ssh-key`);
    expect(get.body).to.include({ configured: true, fingerprint: put.body.fingerprint });
    const env = await admin.get(`/api/environments/${envId}`);
    expect(env.text).to.not.include('v1:');
    const audits = await svc.services.db('audit_logs').where({ action: 'setEnvironmentSshKey' });
    expect(JSON.stringify(audits)).to.not.include('PRIVATE');
    expect(svc.logs.join('')).to.not.include(key.split('\n')[1]!);
    expect((await admin.delete(`/api/environments/${envId}/ssh-key`)).status).to.equal(204);
    expect((await admin.get(`/api/environments/${envId}/ssh-key`)).body.configured).to.equal(false);
  });

  it('generates an ed25519 key for an environment without one: only admins, never over a key, the private half only sealed', async () => {
    const env = (await createEnvironment(admin)).id;
    expect((await operator.post(`/api/environments/${env}/ssh-key/generate`)).status).to.equal(403);
    const gen = await admin.post(`/api/environments/${env}/ssh-key/generate`);
    expect(gen.status, gen.text).to.equal(201);
    expect(gen.body).to.include({ configured: true });
    expect(gen.body.publicKey).to.match(/^ssh-ed25519 [A-Za-z0-9+/=]+$/);
    expect(gen.text).to.not.include('PRIVATE');
    const row = await svc.services.db('environments').where({ id: env }).first();
    const opened = svc.services.secretBox.open(row.sshPrivateKeySealed);
    expect(opened).to.include('BEGIN OPENSSH PRIVATE KEY');
    expect(parsePrivateKey(opened)).to.deep.equal({ publicKey: gen.body.publicKey, fingerprint: gen.body.fingerprint });
    const again = await admin.post(`/api/environments/${env}/ssh-key/generate`);
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('CONFLICT');
    expect((await svc.services.db('environments').where({ id: env }).first()).sshPrivateKeySealed).to.equal(row.sshPrivateKeySealed);
  });

  it('rejects a private key ssh2 cannot parse, a public key, and an encrypted key', async () => {
    const pub = newSshKeyPair().public;
    const encrypted = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    for (const privateKey of ['not a key', pub, encrypted]) {
      const res = await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'privateKey' });
    }
    const check = await admin.post(`/api/environments/${envId}/ssh-key/check`);
    expect(check.status).to.equal(409);
  });

  it('imports servers from terraform output -json, creating then updating by name, and audits it', async () => {
    const env = (await createEnvironment(admin)).id;
    const output = {
      web_hosts: { sensitive: false, type: ['list', ['object']], value: [{ name: 'tf-web-1', ip: '10.1.0.1' }, { name: 'tf-web-2', host: 'web2.internal', port: 2222, user: 'ops' }] },
      db_hosts: { sensitive: false, type: ['map', 'string'], value: { 'tf-db-1': '10.1.0.9' } },
      region: { sensitive: false, type: 'string', value: 'eu-west-1' },
    };
    const first = await admin.post(`/api/environments/${env}/servers/import`, { output });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.created.map((s: { name: string }) => s.name).sort()).to.deep.equal(['tf-db-1', 'tf-web-1', 'tf-web-2']);
    const web2 = first.body.created.find((s: { name: string }) => s.name === 'tf-web-2');
    expect(web2).to.include({ hostname: 'web2.internal', sshPort: 2222, sshUser: 'ops' });
    expect(web2.source).to.include({ kind: 'terraform-import' });
    output.db_hosts.value['tf-db-1'] = '10.1.0.10';
    const second = await admin.post(`/api/environments/${env}/servers/import`, { output: JSON.stringify(output) });
    expect(second.body.updated.map((s: { name: string }) => s.name)).to.deep.equal(['tf-db-1']);
    expect(second.body.updated[0].hostname).to.equal('10.1.0.10');
    expect(second.body.unchanged).to.have.length(2);
    const only = await admin.post(`/api/environments/${env}/servers/import`, { output, outputName: 'region' });
    expect(only.status).to.equal(400);
    const hostile = await admin.post(`/api/environments/${env}/servers/import`, { output: [{ name: 'evil', ip: '$(touch /tmp/pwned)' }] });
    expect(hostile.status).to.equal(400);
    const audit = await svc.services.db('audit_logs').where({ action: 'importServers', environmentId: env }).orderBy('id');
    expect(audit).to.have.length(2);
    expect(audit[0].details).to.include({ source: 'terraform-import' });
  });

  it('forgets a pinned host key only for an admin who names it, audits it, and lets the next connection pin again', async () => {
    const srv = (await create({ name: 'rebuilt', hostname: 'rebuilt.internal' })).body;
    const url = `/api/servers/${srv.id}/host-key/reset`;
    const old = 'SHA256:oldkeyoldkeyoldkeyoldkeyoldkeyoldkeyoldkey0';
    // nothing pinned yet: nothing to forget
    expect((await admin.post(url, { fingerprint: old })).status).to.equal(409);
    // pinned the way a first connection pins (trust on first use)
    expect(await svc.services.servers.pinHostKeyIfUnset(srv.id, old)).to.equal(true);
    expect((await svc.http.post(url, { fingerprint: old })).status).to.equal(401);
    expect((await operator.post(url, { fingerprint: old })).status).to.equal(403);
    expect((await viewer.post(url, { fingerprint: old })).status).to.equal(403);
    expect((await admin.post('/api/servers/00000000-0000-4000-8000-000000000000/host-key/reset', { fingerprint: old })).status).to.equal(404);
    expect((await admin.post(url, {})).body).to.include({ code: 'VALIDATION_ERROR', field: 'fingerprint' });
    // another key than the one pinned: refused, the pin kept
    const stale = await admin.post(url, { fingerprint: 'SHA256:somethingelse' });
    expect(stale.status).to.equal(409);
    expect(stale.body.field).to.equal('fingerprint');
    expect((await viewer.get(`/api/servers/${srv.id}`)).body.hostKeyFingerprint).to.equal(old);

    const res = await admin.post(url, { fingerprint: old });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.hostKeyFingerprint).to.equal(null);
    expect((await viewer.get(`/api/servers/${srv.id}`)).body.hostKeyFingerprint).to.equal(null);
    expect((await svc.services.db('servers').where({ id: srv.id }).first()).hostKeyFingerprint).to.equal(null);
    const audit = await svc.services.db('audit_logs').where({ resourceId: srv.id, action: 'resetServerHostKey' });
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ actorType: 'user', actorId: adminUserId });
    expect(audit[0].details).to.include({ name: 'rebuilt', forgottenFingerprint: old });
    // the rebuilt machine's key is pinned by the next connection
    const rebuilt = 'SHA256:newkeynewkeynewkeynewkeynewkeynewkeynewkey0';
    expect(await svc.services.servers.pinHostKeyIfUnset(srv.id, rebuilt)).to.equal(true);
    expect((await viewer.get(`/api/servers/${srv.id}`)).body.hostKeyFingerprint).to.equal(rebuilt);
  });

  it('host key scan and accept: admins only, accept names both keys, socket mode refused, unknown server 404', async () => {
    const srv = (await create({ name: 'scanned', hostname: 'scanned.internal' })).body;
    const key = 'SHA256:presentedpresentedpresentedpresentedpresen0';
    for (const op of ['scan', 'accept']) {
      const url = `/api/servers/${srv.id}/host-key/${op}`;
      const body = op === 'accept' ? { fingerprint: key, replaces: null } : undefined;
      expect((await svc.http.post(url, body)).status, op).to.equal(401);
      expect((await operator.post(url, body)).body.code, op).to.equal('FORBIDDEN_ROLE');
      expect((await viewer.post(url, body)).body.code, op).to.equal('FORBIDDEN_ROLE');
      expect((await admin.post(`/api/servers/00000000-0000-4000-8000-000000000000/host-key/${op}`, body)).status, op).to.equal(404);
    }
    const accept = `/api/servers/${srv.id}/host-key/accept`;
    expect((await admin.post(accept, { replaces: null })).body).to.include({ code: 'VALIDATION_ERROR', field: 'fingerprint' });
    expect((await admin.post(accept, { fingerprint: key })).body).to.include({ code: 'VALIDATION_ERROR', field: 'replaces' });
    const env = (await createEnvironment(admin)).id;
    const host = (await admin.post(`/api/environments/${env}/servers/register-host`, { dockerSocketPath: '/nonexistent/docker.sock' })).body;
    for (const op of ['scan', 'accept']) {
      const res = await admin.post(`/api/servers/${host.id}/host-key/${op}`, op === 'accept' ? { fingerprint: key, replaces: null } : undefined);
      expect(res.status, op).to.equal(409);
      expect(res.body.message).to.contain('socket mode');
    }
    expect((await viewer.get(`/api/servers/${srv.id}`)).body.hostKeyFingerprint).to.equal(null);
  });

  it('registers the controller host in socket mode and the cached health status never starts a check', async () => {
    const env = (await createEnvironment(admin)).id;
    const res = await admin.post(`/api/environments/${env}/servers/register-host`, { dockerSocketPath: '/nonexistent/docker.sock' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ name: 'controller-host', dockerMode: 'socket', dockerSocketPath: '/nonexistent/docker.sock', hostname: 'localhost' });
    const cached = await viewer.get(`/api/environments/${env}/health-status`);
    expect(cached.status).to.equal(200);
    expect(cached.body.servers).to.deep.equal([{ serverId: res.body.id, name: 'controller-host', status: 'unknown', checkedAt: null, message: null }]);
    const live = await operator.post(`/api/servers/${res.body.id}/health`, {});
    expect(live.status).to.equal(200);
    expect(live.body.health.status).to.equal('unhealthy');
    expect(live.body.health.message).to.match(/nonexistent\/docker\.sock|ENOENT/);
    const after = await viewer.get(`/api/environments/${env}/health-status`);
    expect(after.body.servers[0]).to.include({ status: 'unhealthy' });
    const events = await svc.services.events.since(0, env);
    // one failed check is below health.failed's bounce threshold (2): no alert yet, but a health log
    expect(events.map((e) => e.type)).to.deep.equal(['health.changed']);
    expect(events[0]!.data).to.include({ serverId: res.body.id, status: 'unhealthy', previousStatus: 'unknown' });
    const logs = await viewer.get(`/api/environments/${env}/health-logs`);
    expect(logs.body.items).to.have.length(1);
    expect(logs.body.items[0]).to.include({ kind: 'server', serverId: res.body.id, status: 'failed' });
  });
});

describe('server health reconciler (background worker)', () => {
  let svc: TestService;
  after(() => svc?.stop());

  it('checks every server at the scheduler cadence: one alert when one stays down, then reminders at the interval', async () => {
    svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '1' });
    const admin = await bootstrapAdmin(svc.http);
    const envId = (await createEnvironment(admin)).id;
    const policy = await admin.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 2, reminderIntervalSec: 2 });
    expect(policy.body).to.include({ bounceThreshold: 2, recoverThreshold: 1, reminderIntervalSec: 2 });
    const res = await admin.post(`/api/environments/${envId}/servers/register-host`, { name: 'gone', dockerSocketPath: '/nonexistent/docker.sock' });
    expect(res.status, res.text).to.equal(201);
    const failed = await until('a down and a reminder health.failed', async () => {
      const events = (await svc.services.events.since(0, envId)).filter((e) => e.type === 'health.failed');
      return events.length >= 2 && events;
    }, { timeoutMs: 20_000, everyMs: 100 });
    expect(failed.map((e) => e.data.alert)).to.deep.equal(['down', 'reminder']);
    expect(failed[0]!.data).to.include({ serverId: res.body.id, kind: 'server', checkKey: `server:${res.body.id}` });
    const logs = (await admin.get(`/api/environments/${envId}/health-logs?kind=server`)).body;
    // down after the 2nd failed check, the reminder at least 2 s later: 3 or more checks
    expect(logs.total).to.be.at.least(3);
    const changed = (await svc.services.events.since(0, envId)).filter((e) => e.type === 'health.changed');
    expect(changed).to.have.length(1);
    const cached = await admin.get(`/api/environments/${envId}/health-status`);
    expect(cached.body.servers[0]).to.include({ status: 'unhealthy' });
  });
});
