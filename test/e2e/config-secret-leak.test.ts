import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import { HttpClient, type HttpResponse, type RequestOptions } from '../support/http-client.js';
import { serverExec } from '../fleet/fleet.js';
import { useFleet } from '../support/config-fleet.js';

/** Keeps every response body it sees (except the ones the test marks as allowed to hold the secret). */
class RecordingClient extends HttpClient {
  constructor(baseUrl: string, token: string | null, readonly seen: Array<{ what: string; text: string }>) {
    super(baseUrl, token);
  }
  override withToken(token: string | null): HttpClient {
    return new RecordingClient(this.baseUrl, token, this.seen);
  }
  override async request<T = any>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<HttpResponse<T>> {
    const res = await super.request<T>(method, path, body, opts);
    this.seen.push({ what: `${method} ${path} -> ${res.status}`, text: res.text + JSON.stringify([...res.headers]) });
    return res;
  }
}

describe('no secret value leaves through config routes, audit, events or logs', () => {
  let svc: TestService;
  const seen: Array<{ what: string; text: string }> = [];
  const SECRET = `leak-canary-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const ROTATED = `${SECRET}-rotated`;
  const FOUND = 'Pw9xK2mQ7vL3zR8t';

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.stop());

  it('plants a unique secret, runs every config route, and finds it nowhere but in reveal', async () => {
    const http = new RecordingClient(svc.url, null, seen);
    const admin = await bootstrapAdmin(http);
    const viewer = (await userWithRole(admin, 'viewer')).client;
    const env = (await createEnvironment(admin)).id;
    const fe = await useFleet(svc, admin, env);
    const web = await fe.addService('web', ['s1', 's2']);
    const dir = `/srv/stevedore-leak-${Date.now()}`;
    const ok = (res: HttpResponse, status = 200) => {
      expect(res.status, res.text).to.equal(status);
      return res.body;
    };

    // secrets and vars
    const secret = ok(await admin.post(`/api/environments/${env}/secrets`, { key: 'CANARY', value: SECRET, description: 'canary' }), 201);
    ok(await admin.post(`/api/environments/${env}/secrets`, { key: 'CANARY', value: SECRET }), 409);
    ok(await admin.post(`/api/environments/${env}/secrets`, { key: 'bad key', value: SECRET }), 400);
    ok(await viewer.post(`/api/environments/${env}/secrets`, { key: 'X', value: SECRET }), 403);
    ok(await admin.get(`/api/environments/${env}/secrets`));
    ok(await viewer.get(`/api/secrets/${secret.id}`));
    const v = ok(await admin.post(`/api/environments/${env}/vars`, { key: 'PORT', value: '80' }), 201);
    ok(await admin.get(`/api/environments/${env}/vars`));
    ok(await admin.get(`/api/vars/${v.id}`));
    ok(await admin.patch(`/api/vars/${v.id}`, { description: 'port' }));

    // fragments and files
    const frag = ok(await admin.post(`/api/environments/${env}/config-fragments`, { name: 'auth', content: 'token=${CANARY}\n' }), 201);
    ok(await admin.get(`/api/environments/${env}/config-fragments`));
    ok(await admin.get(`/api/config-fragments/${frag.id}`));
    const file = ok(await admin.post(`/api/environments/${env}/config-files`, { name: 'app.env', content: 'A=${CANARY}\nP=${PORT}\n${fragment:auth}' }), 201);
    ok(await admin.post(`/api/environments/${env}/config-files`, { name: 'bad', content: '${CANARY;x}' }), 400);
    const legacy = ok(await admin.post(`/api/environments/${env}/config-files`, { name: 'legacy.conf', content: `password=${FOUND}\n` }), 201);
    ok(await admin.get(`/api/environments/${env}/config-files`));
    ok(await admin.get(`/api/config-files/${file.id}`));
    ok(await viewer.get(`/api/config-files/${file.id}/preview`));
    ok(await admin.patch(`/api/config-files/${file.id}`, { content: 'A=${CANARY}\nP=${PORT}\n${fragment:auth}# v2\n' }));
    ok(await admin.get(`/api/config-files/${file.id}/history`));
    ok(await admin.post(`/api/config-files/${file.id}/restore`, { revision: 1 }));
    const att = ok(await admin.post(`/api/config-files/${file.id}/attachments`, { serviceId: web, targetPath: `${dir}/.env` }), 201);
    ok(await admin.get(`/api/config-files/${file.id}/attachments`));
    ok(await admin.get(`/api/config-attachments/${att.id}`));
    ok(await admin.patch(`/api/config-attachments/${att.id}`, { mode: '0600' }));

    // sync in every form, before and after a rotation (the old value stays on disk until synced)
    ok(await admin.post(`/api/config-files/${file.id}/sync-all`, { dryRun: true }));
    ok(await admin.post(`/api/config-files/${file.id}/sync-all`, {}));
    ok(await admin.patch(`/api/secrets/${secret.id}`, { value: ROTATED }));
    const dry = ok(await admin.post(`/api/config-attachments/${att.id}/sync`, { dryRun: true }));
    expect(dry.targets[0].diff).to.include('[REDACTED#');
    ok(await admin.patch(`/api/config-fragments/${frag.id}`, { content: 'token=${CANARY} # rotated\n' }));
    await svc.services.queue.drain();
    ok(await admin.post(`/api/services/${web}/sync-config`, { dryRun: true }));
    ok(await admin.post(`/api/servers/${fe.serverIds.s1}/sync-config`, {}));
    ok(await admin.post(`/api/config-attachments/${att.id}/sync`, {}));
    ok(await admin.post('/api/sync/batch', { operations: [{ configFileId: file.id }] }));
    const broken = ok(await admin.post(`/api/environments/${env}/config-files`, { name: 'broken.conf', content: 'x=${CANARY}\n' }), 201);
    ok(await admin.post(`/api/config-files/${broken.id}/attachments`, { serviceId: web, targetPath: '/broken/stevedore/broken.conf' }), 201);
    // files land under the deployment's directory: a regular file where a directory must go makes it unwritable
    await serverExec('s1', ['sh', '-c', 'mkdir -p /opt/stevedore/deployments/web/files && touch /opt/stevedore/deployments/web/files/broken']);
    const failed = ok(await admin.post('/api/sync/batch', { operations: [{ configFileId: file.id }, { configFileId: broken.id }] }));
    expect(failed.status).to.equal('failed');

    // scanner
    const pre = ok(await admin.post(`/api/environments/${env}/secret-substitutions/preview`, {}));
    expect(JSON.stringify(pre)).to.not.include(FOUND); // found values are shown masked
    const finding = pre.files.find((f: { name: string }) => f.name === 'legacy.conf').findings[0];
    ok(await admin.post(`/api/environments/${env}/secret-substitutions`, { substitutions: [{ configFileId: legacy.id, findingId: finding.id, key: 'LEGACY' }] }), 201);
    ok(await admin.get(`/api/config-files/${legacy.id}/history`));

    // reveal: the one route allowed to answer the value
    const reveal = await admin.post(`/api/secrets/${secret.id}/reveal`);
    expect(reveal.body.value).to.equal(ROTATED);
    seen.pop();
    ok(await admin.patch(`/api/environments/${env}/settings/configuration`, { allowSecretReveal: false }));
    ok(await admin.post(`/api/secrets/${secret.id}/reveal`), 403);

    // deletes
    ok(await admin.delete(`/api/config-fragments/${frag.id}`), 409);
    ok(await admin.delete(`/api/config-attachments/${att.id}`), 204);
    ok(await admin.delete(`/api/config-files/${broken.id}`), 204);
    ok(await admin.delete(`/api/vars/${v.id}`), 204);
    ok(await admin.delete(`/api/secrets/${secret.id}`), 204);
    ok(await admin.get(`/api/environments/${env}/secrets`));

    const canaries = [SECRET, ROTATED];
    for (const { what, text } of seen) for (const c of canaries) expect(text.includes(c), `${what} leaks the secret`).to.equal(false);
    expect(seen.length).to.be.greaterThan(50);
    const db = svc.services.db;
    const tables = ['audit_logs', 'events', 'idempotency_keys'];
    for (const t of tables) {
      const dump = JSON.stringify(await db(t).select());
      for (const c of [SECRET, ROTATED]) expect(dump.includes(c), `${t} holds the secret`).to.equal(false);
    }
    const logs = svc.logs.join('');
    expect(logs.length).to.be.greaterThan(0);
    for (const c of [...canaries, FOUND]) expect(logs.includes(c), 'service logs hold a secret value').to.equal(false);
    // it really was written to the servers (the canary is real)
    expect((await svc.services.hosts.readFile(fe.serverIds.s1, `/opt/stevedore/deployments/web/files${dir}/.env`))!.toString()).to.include(ROTATED);
    await serverExec('s1', ['rm', '-rf', '/opt/stevedore/deployments/web']);
  });
});
