// Server management through the API against the real fleet (test/fleet/up.sh): three sshd +
// dockerd servers reached with the fleet key set as the environment SSH key.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { sweepHealth } from '../../controller/servers/health.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverCtl, serverExec, type Fleet } from '../fleet/fleet.js';
import { startBlackHole } from '../fleet/black-hole.js';

describe('servers against the fleet (e2e)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let fleet: Fleet;
  let admin: HttpClient;
  let operator: HttpClient;
  let envId: string;
  const ids: Record<string, string> = {};

  const eventsOf = async (type: string, serverId: string) =>
    (await svc.services.events.since(0, envId)).filter((e) => e.type === type && e.data.serverId === serverId);
  const health = (name: string, timeoutMs = 5000) => operator.post(`/api/servers/${ids[name]}/health`, { timeoutMs });
  const onServer = async (name: string, argv: string[]) => serverExec(name, argv);

  before(async () => {
    fleet = loadFleet();
    // the reconciler stays out of the way: these tests drive checks themselves
    svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '86400' });
    admin = await bootstrapAdmin(svc.http);
    operator = (await userWithRole(admin, 'operator')).client;
    envId = (await createEnvironment(admin)).id;
    const key = await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) });
    expect(key.status, key.text).to.equal(200);
    for (const f of fleet.servers) {
      const res = await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user });
      expect(res.status, res.text).to.equal(201);
      ids[f.name] = res.body.id;
    }
  });
  after(async () => {
    await serverCtl('s2', 'start-ssh').catch(() => undefined);
    await onServer('s1', ['docker', 'rm', '-f', 'handmade']).catch(() => undefined);
    await svc?.stop();
  });

  it('checks the key against every server and health-checks all three as healthy, pinning their host keys', async () => {
    const check = await admin.post(`/api/environments/${envId}/ssh-key/check`);
    expect(check.status, check.text).to.equal(200);
    expect(check.body.items.map((i: { ok: boolean }) => i.ok)).to.deep.equal([true, true, true]);
    for (const f of fleet.servers) {
      const res = await health(f.name);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.health.status, res.body.health.message).to.equal('healthy');
      expect(res.body.health.message).to.match(/^docker \d+\.\d+/);
      expect(res.body.hostKeyFingerprint).to.equal(f.hostKeyFingerprint);
    }
    const cached = await operator.get(`/api/environments/${envId}/health-status`);
    expect(cached.body.servers.map((s: { status: string }) => s.status)).to.deep.equal(['healthy', 'healthy', 'healthy']);
  });

  it('reports a server whose sshd stopped as unhealthy, alerts once at the second failed check, and recovers once it is back', async () => {
    const id = ids.s2!;
    await serverCtl('s2', 'stop-ssh');
    try {
      const down = await health('s2');
      expect(down.body.health.status).to.equal('unhealthy');
      expect(down.body.health.message).to.match(/unreachable|refused|closed|timed out/i);
      const changed = await eventsOf('health.changed', id);
      expect(changed.at(-1)!.data).to.include({ status: 'unhealthy', previousStatus: 'healthy', serverName: 's2' });
      // one failed check is below health.failed's bounce threshold (2): no alert yet
      expect(await eventsOf('health.failed', id)).to.have.length(0);
      // the reconciler's pass is the second failure in a row: down, exactly one alert
      await sweepHealth(svc.services, { environmentId: envId, timeoutMs: 5000 });
      const failed = await eventsOf('health.failed', id);
      expect(failed).to.have.length(1);
      expect(failed[0]!.data).to.include({ alert: 'down', kind: 'server' });
      expect(await eventsOf('health.changed', id)).to.have.length(changed.length);
    } finally {
      await serverCtl('s2', 'start-ssh');
    }
    const up = await health('s2');
    expect(up.body.health.status, up.body.health.message).to.equal('healthy');
    expect((await eventsOf('health.recovered', id))).to.have.length(1);
    expect((await eventsOf('health.changed', id)).at(-1)!.data).to.include({ status: 'healthy', previousStatus: 'unhealthy' });
  });

  it('reports a server whose dockerd stopped as unhealthy, naming docker, while ssh still works', async () => {
    await serverCtl('s3', 'stop-docker');
    try {
      const down = await health('s3');
      expect(down.body.health.status).to.equal('unhealthy');
      expect(down.body.health.message).to.match(/^docker is not answering/);
    } finally {
      await serverCtl('s3', 'start-docker');
    }
    expect((await health('s3')).body.health.status).to.equal('healthy');
  });

  it('discovers a container started by hand and links a container named like a deployment', async () => {
    await onServer('s1', ['docker', 'rm', '-f', 'handmade']).catch(() => undefined);
    await onServer('s1', ['docker', 'run', '-d', '--name', 'handmade', '--label', 'origin=by-hand', fleet.images.busybox, 'sleep', '3600']);
    const db = svc.services.db;
    const [service] = await db('services').insert({ environmentId: envId, name: 'hand-svc' }).returning('*');
    const [dep] = await db('deployments').insert({ serviceId: service.id, environmentId: envId, serverId: ids.s1, containerName: 'handmade' }).returning('*');
    const res = await operator.post(`/api/servers/${ids.s1}/discover`);
    expect(res.status, res.text).to.equal(200);
    const found = res.body.items.find((c: { name: string }) => c.name === 'handmade');
    expect(found).to.include({ image: fleet.images.busybox, state: 'running', deploymentId: dep.id, serviceId: service.id });
    expect(found.labels).to.include({ origin: 'by-hand' });
    const stored = await operator.get(`/api/servers/${ids.s1}/containers`);
    expect(stored.body.items).to.deep.equal(res.body.items);
    const withServices = await operator.get(`/api/servers/${ids.s1}?includeServices=true`);
    expect(withServices.body.services).to.deep.equal([{ deploymentId: dep.id, serviceId: service.id, serviceName: 'hand-svc', containerName: 'handmade', status: 'pending', imageTag: null }]);
    // gone from the server, gone from the next discovery
    await onServer('s1', ['docker', 'rm', '-f', 'handmade']);
    const again = await operator.post(`/api/servers/${ids.s1}/discover`);
    expect(again.body.items.map((c: { name: string }) => c.name)).to.not.include('handmade');
  });

  it('prunes dangling images and reports what it reclaimed', async () => {
    const name = `mk-${randomBytes(3).toString('hex')}`;
    await onServer('s2', ['docker', 'run', '--name', name, fleet.images.busybox, 'sh', '-c', 'head -c 200000 /dev/urandom > /blob']);
    const imageId = (await onServer('s2', ['docker', 'commit', name])).trim(); // untagged: dangling
    await onServer('s2', ['docker', 'rm', name]);
    const res = await operator.post(`/api/servers/${ids.s2}/prune-images`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ mode: 'dangling', serverId: ids.s2 });
    expect(res.body.imagesDeleted).to.be.at.least(1);
    expect(res.body.spaceReclaimedBytes).to.be.at.least(200_000);
    const gone = await onServer('s2', ['sh', '-c', `docker image inspect ${imageId} >/dev/null 2>&1 && echo present || echo gone`]);
    expect(gone.trim()).to.equal('gone');
    // the busybox image is tagged: dangling mode keeps it
    expect((await onServer('s2', ['docker', 'image', 'ls', '-q', fleet.images.busybox])).trim()).to.not.equal('');
  });

  it('runs hostile arguments literally: nothing they name gets created', async () => {
    const marker = `/tmp/pwned-${randomBytes(4).toString('hex')}`;
    const hostile = [`$(touch ${marker})`, `\`touch ${marker}\``, `'; touch ${marker}; '`, `"; touch ${marker}; "`, `a\ntouch ${marker}`, `x && touch ${marker}`];
    for (const arg of hostile) {
      const res = await svc.services.hosts.exec(ids.s1!, ['printf', '%s', arg]);
      expect(res.stdout).to.equal(arg);
    }
    const dir = `/srv/stevedore-hostile-${randomBytes(3).toString('hex')}`;
    const odd = `${dir}/$(touch ${marker}) 'q' "d"\nx`;
    await svc.services.hosts.writeFile(ids.s1!, odd, 'literal');
    expect((await svc.services.hosts.readFile(ids.s1!, odd))!.toString()).to.equal('literal');
    // the file sits at exactly that literal path (server.sh exec passes argv with no shell)
    expect(await onServer('s1', ['cat', odd])).to.equal('literal');
    const where = await onServer('s1', ['sh', '-c', `test -e ${marker} && echo exists || echo absent`]);
    expect(where.trim()).to.equal('absent');
    expect(existsSync(marker)).to.equal(false);
    await onServer('s1', ['rm', '-rf', dir]);
  });

  it('takes a process snapshot over ssh', async () => {
    const res = await operator.get(`/api/servers/${ids.s1}/processes?limit=500`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.total).to.be.greaterThan(1);
    expect(res.body.items[0]).to.have.keys('pid', 'ppid', 'user', 'cpuPercent', 'memPercent', 'rssKb', 'elapsedSec', 'state', 'command');
    expect(res.body.items.some((p: { command: string }) => /dockerd/.test(p.command))).to.equal(true);
  });

  it('keeps a black-hole server from delaying the other checks or the API', async () => {
    const hole = await startBlackHole();
    try {
      const created = await admin.post(`/api/environments/${envId}/servers`, { name: 'hole', hostname: '127.0.0.1', sshPort: hole.port });
      const order: string[] = [];
      let sweepDone = false;
      const sweep = sweepHealth(svc.services, {
        // long enough for the healthy servers' checks on a loaded machine: only the hole takes it all
        environmentId: envId, timeoutMs: 10_000, onChecked: (srv) => { order.push(srv.name); },
      }).then((r) => { sweepDone = true; return r; });
      // the API answers while the black hole still holds its check
      const cached = await operator.get(`/api/environments/${envId}/health-status`);
      expect(cached.status).to.equal(200);
      const live = await health('s1');
      expect(live.body.health.status).to.equal('healthy');
      expect(sweepDone).to.equal(false);
      const results = await sweep;
      expect(order.at(-1)).to.equal('hole');
      expect(order.slice(0, 3).sort()).to.deep.equal(['s1', 's2', 's3']);
      const byName = Object.fromEntries(results.map((r) => [r.server.name, r.result]));
      expect([byName.s1!.status, byName.s2!.status, byName.s3!.status]).to.deep.equal(['healthy', 'healthy', 'healthy']);
      expect(byName.hole!.status).to.equal('unhealthy');
      expect(byName.hole!.message).to.match(/timed out|no ssh handshake/);
      await admin.delete(`/api/servers/${created.body.id}`);
    } finally {
      await hole.close();
    }
  });

  it('refuses a server whose host key changed, with a clear error, and keeps the pinned key', async () => {
    const pinned = fleet.servers[2]!.hostKeyFingerprint;
    expect((await health('s3')).body.hostKeyFingerprint, 'pinned by a first connection').to.equal(pinned);
    const rotated = await serverCtl('s3', 'rotate-hostkey');
    const res = await health('s3');
    expect(res.body.health.status).to.equal('unhealthy');
    expect(res.body.health.message).to.contain('host key').and.contain(`expected ${pinned}`).and.contain(`got ${rotated}`);
    expect(res.body.hostKeyFingerprint).to.equal(pinned);
    const live = await operator.post(`/api/servers/${ids.s3}/discover`);
    expect(live.status).to.equal(409);
    expect(live.body.message).to.contain('host key');
    expect(live.body.hint).to.contain('/host-key/scan');
  });

  it('reads the key a rebuilt server presents and pins it only as the admin confirmed it; the server answers again', async () => {
    // "rebuilt": the key pinned in the database is not the one the machine presents
    const pinned = 'SHA256:b2xkLW1hY2hpbmUtYmVmb3JlLXRoZS1yZWJ1aWxkLWtleQ';
    await svc.services.db('servers').where({ id: ids.s3 }).update({ hostKeyFingerprint: pinned });
    const presented = loadFleet().servers[2]!.hostKeyFingerprint!;
    expect((await health('s3')).body.health.message).to.contain(`expected ${pinned}`);
    const scan = await admin.post(`/api/servers/${ids.s3}/host-key/scan`);
    expect(scan.status, scan.text).to.equal(200);
    expect(scan.body).to.deep.equal({ serverId: ids.s3, presented: { fingerprint: presented, algorithm: 'ssh-ed25519' }, pinned, matches: false,
      message: 'the server presents another key than the pinned one' });
    const accept = (body: object) => admin.post(`/api/servers/${ids.s3}/host-key/accept`, body);
    // a key other than the one presented, or a pin other than the one seen: 409, nothing changes
    const wrongKey = await accept({ fingerprint: pinned, replaces: pinned });
    expect(wrongKey.status).to.equal(409);
    expect(wrongKey.body).to.include({ field: 'fingerprint' });
    expect(wrongKey.body.message).to.contain(`presents ${presented}, not ${pinned}`);
    const stalePin = await accept({ fingerprint: presented, replaces: null });
    expect(stalePin.status).to.equal(409);
    expect(stalePin.body).to.include({ field: 'replaces' });
    expect((await admin.get(`/api/servers/${ids.s3}`)).body.hostKeyFingerprint).to.equal(pinned);

    const ok = await accept({ fingerprint: presented, replaces: pinned });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.hostKeyFingerprint).to.equal(presented);
    const audit = await svc.services.db('audit_logs').where({ resourceId: ids.s3, action: 'acceptServerHostKey' });
    expect(audit.map((a: { details: object }) => a.details)).to.deep.equal([{ name: 's3', pinnedFingerprint: presented, replacedFingerprint: pinned }]);
    // the server is reached again, over a connection checked against the new pin
    const res = await health('s3');
    expect(res.body.health.status, res.body.health.message).to.equal('healthy');
    expect((await admin.post(`/api/servers/${ids.s3}/host-key/scan`)).body).to.include({ matches: true, pinned: presented });
  });

  it('a host key scan of a server that does not answer says so and stores nothing', async () => {
    const hole = await startBlackHole();
    try {
      const created = await admin.post(`/api/environments/${envId}/servers`, { name: 'silent', hostname: '127.0.0.1', sshPort: hole.port });
      const started = Date.now();
      const scan = await admin.post(`/api/servers/${created.body.id}/host-key/scan`);
      expect(scan.status, scan.text).to.equal(200);
      expect(scan.body).to.include({ presented: null, pinned: null, matches: false });
      expect(scan.body.message).to.match(/^no host key read: /);
      expect(Date.now() - started).to.be.below(20_000);
      const accept = await admin.post(`/api/servers/${created.body.id}/host-key/accept`, { fingerprint: 'SHA256:x', replaces: null });
      expect(accept.status).to.equal(409);
      expect(accept.body.message).to.contain('nothing was pinned');
      expect((await admin.get(`/api/servers/${created.body.id}`)).body.hostKeyFingerprint).to.equal(null);
      await admin.delete(`/api/servers/${created.body.id}`);
    } finally {
      await hole.close();
    }
  });
});
