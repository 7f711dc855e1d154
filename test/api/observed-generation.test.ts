// observedGeneration is written on every look of a kind that has conditions, not only when its
// conditions change: it says which spec the conditions describe. Here: a server whose spec
// changed while its health did not (it stays unreachable: 127.0.0.1 port 1).
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { newSshKeyPair } from '../support/ssh-key.js';

describe('observedGeneration follows every look', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let serverId: string;

  before(async () => {
    svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '3600' });
    admin = await bootstrapAdmin(svc.http);
    const envId = (await createEnvironment(admin)).id;
    await svc.services.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: svc.services.secretBox.seal(newSshKeyPair().private) });
    const res = await admin.post(`/api/environments/${envId}/servers`, { name: 'gone', hostname: '127.0.0.1', sshPort: 1 });
    expect(res.status, res.text).to.equal(201);
    serverId = res.body.id;
  });
  after(() => svc.stop());

  it("of a server: a health check after a spec change records the new generation though its conditions stayed the same", async () => {
    const statusOf = (cs: Array<{ type: string; status: string; reason: string }>) => cs.map((c) => [c.type, c.status, c.reason]);
    // checks until its conditions settle (its alert turns down after a few failures)
    let first: any = null;
    for (let i = 0; i < 6; i++) {
      expect((await admin.post(`/api/servers/${serverId}/health`, {})).status).to.equal(200);
      const now = (await admin.get(`/api/servers/${serverId}`)).body;
      if (first && JSON.stringify(statusOf(now.conditions)) === JSON.stringify(statusOf(first.conditions))) break;
      first = now;
    }
    expect(first.observedGeneration).to.equal(first.generation);
    const patched = await admin.patch(`/api/servers/${serverId}`, { sshPort: 2 });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.generation).to.be.greaterThan(first.generation);
    expect((await admin.post(`/api/servers/${serverId}/health`, {})).status).to.equal(200);
    const second = (await admin.get(`/api/servers/${serverId}`)).body;
    expect(statusOf(second.conditions)).to.deep.equal(statusOf(first.conditions));
    expect(second.observedGeneration).to.equal(patched.body.generation);
  });
});
