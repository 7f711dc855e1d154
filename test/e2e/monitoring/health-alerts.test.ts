// Monitoring checks and alerts against the real fleet, driven by the real scheduled health worker
// (SCHEDULER_HEALTH_CHECK_SEC=1): a TCP and a certificate check of a container serving a
// self-signed certificate that expires in 5 days, and an sshd outage that must produce exactly one
// "down" webhook, the configured reminders and exactly one "recovered".
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { Receiver, type ReceivedRequest } from '../../support/receiver.js';
import { until } from '../../support/until.js';
import { loadFleet, privateKeyOf, serverCtl, serverExec, type Fleet } from '../../fleet/fleet.js';

const REMINDER_SEC = 2;
const TLS_PORT = 18443;

describe('monitoring checks and alerts on the fleet (e2e)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let fleet: Fleet;
  let admin: HttpClient;
  let envId: string;
  const rx = new Receiver();
  const ids: Record<string, string> = {};

  /** health.failed / health.recovered webhooks of one check, in the order they arrived. */
  const alertsOf = (checkKey: string) => rx.delivered.filter((r) => r.json?.data?.checkKey === checkKey);
  const kinds = (list: ReceivedRequest[]) => list.map((r) => `${r.json.event}/${r.json.data.alert}`);
  const logs = async (q: string) => (await admin.get(`/api/environments/${envId}/health-logs?${q}`)).body.items as Array<Record<string, any>>;

  before(async () => {
    fleet = loadFleet();
    await rx.start();
    svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    const policy = await admin.patch('/api/admin/notification-types/health.failed', { bounceThreshold: 2, recoverThreshold: 1, reminderIntervalSec: REMINDER_SEC });
    expect(policy.status, policy.text).to.equal(200);
    const hook = await admin.post('/api/admin/webhooks', {
      name: 'alerts', url: `${rx.url}/alerts`, enabled: true, eventTypes: ['health.failed', 'health.recovered'], environmentIds: [envId],
    });
    expect(hook.status, hook.text).to.equal(201);
    expect((await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) })).status).to.equal(200);
    for (const f of fleet.servers.filter((x) => x.name !== 's3')) {
      const res = await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user });
      expect(res.status, res.text).to.equal(201);
      ids[f.name] = res.body.id;
    }
  });
  after(async () => {
    await serverCtl('s2', 'start-ssh').catch(() => undefined);
    await serverExec('s1', ['docker', 'rm', '-f', 'mon-tls']).catch(() => undefined);
    await svc?.stop();
    await rx.stop();
  });

  it('checks the TCP port and the certificate of a container serving a self-signed certificate that expires in 5 days', async () => {
    // openssl s_server of the host (the fleet servers share /usr) in a busybox container: no image pull
    // one exec into the server: a certificate made by openssl, then the container serving it
    await serverExec('s1', ['sh', '-c', 'mkdir -p /srv/mon-tls && openssl req -x509 -newkey rsa:2048 -nodes -days 5 -subj /CN=expiring.test '
      + '-keyout /srv/mon-tls/key.pem -out /srv/mon-tls/cert.pem 2>/dev/null && chmod 644 /srv/mon-tls/key.pem && exec "$@"', 'sh',
    'docker', 'run', '-d', '--name', 'mon-tls', '-p', `127.0.0.1:${TLS_PORT}:8443`, '-v', '/usr:/usr:ro',
    '-v', '/usr/lib:/lib:ro', '-v', '/usr/lib64:/lib64:ro', '-v', '/etc/ssl:/etc/ssl:ro', '-v', '/srv/mon-tls:/certs:ro',
    fleet.images.busybox, 'openssl', 's_server', '-accept', '8443', '-cert', '/certs/cert.pem', '-key', '/certs/key.pem', '-quiet']);
    const db = svc.services.db;
    const [service] = await db('services').insert({ environmentId: envId, name: 'tls-svc' }).returning('*');
    const [dep] = await db('deployments').insert({ serviceId: service.id, environmentId: envId, serverId: ids.s1, containerName: 'mon-tls', imageTag: 'base' })
      .returning('*');

    await until('a cert check of the container', async () => (await logs(`deploymentId=${dep.id}&kind=cert`)).length > 0, { timeoutMs: 30_000 });
    const [cert] = await logs(`deploymentId=${dep.id}&kind=cert`);
    expect(cert).to.include({ status: 'failed', checkKey: `cert:${dep.id}:${TLS_PORT}`, serverId: ids.s1 });
    expect(cert!.details).to.include({ subject: 'expiring.test', selfSigned: true });
    expect(cert!.details.daysToExpiry).to.be.within(4, 5);
    expect(cert!.error).to.match(/^certificate expires in [45] days/);
    await until('a passing tcp check', async () => (await logs(`deploymentId=${dep.id}&kind=tcp&status=ok`)).length > 0, { timeoutMs: 30_000 });
    const [tcp] = await logs(`deploymentId=${dep.id}&kind=tcp&status=ok`);
    expect(tcp).to.include({ target: `tcp mon-tls on s1 127.0.0.1:${TLS_PORT}`, error: null });
    expect((await logs(`deploymentId=${dep.id}&kind=container`))[0]).to.include({ status: 'ok' });

    // the failing certificate is an alert once it has failed bounceThreshold (2) times in a row
    const key = `cert:${dep.id}:${TLS_PORT}`;
    await rx.waitFor(() => alertsOf(key).length > 0, 30_000, 'the certificate alert');
    expect(kinds(alertsOf(key))[0]).to.equal('health.failed/down');
    expect(alertsOf(key)[0]!.json.data.message).to.match(/^certificate of mon-tls on s1 127\.0\.0\.1:18443 is down: certificate expires in/);
  });

  it('sends one "down" for an sshd stopped longer than the threshold, reminders while it stays down, and one "recovered"', async () => {
    const key = `server:${ids.s2}`;
    // s2 is up by its alert state (a busy machine may have timed a check out before): the outage starts from "up"
    await until('a passing check of s2', async () => (await svc.services.alertStates.find(key))?.status === 'up'
      && (await logs(`checkKey=${key}&status=ok`)).length > 0, { timeoutMs: 30_000 });
    const before = alertsOf(key).length;
    const outage = () => alertsOf(key).slice(before);
    await serverCtl('s2', 'stop-ssh');
    let restarted = false;
    try {
      await rx.waitFor(() => outage().length >= 3, 60_000, 'down and two reminders');
      const conditions = (await svc.services.servers.findById(ids.s2))!.conditions;
      expect(conditions.find((c) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'ChecksFailing' });
      await serverCtl('s2', 'start-ssh');
      restarted = true;
    } finally {
      if (!restarted) await serverCtl('s2', 'start-ssh');
    }
    await rx.waitFor(() => kinds(outage()).includes('health.recovered/recovered'), 60_000, 'the recovery');
    // two more passing checks after the recovery: nothing else may arrive
    const recoveredAt = outage().find((r) => r.json.data.alert === 'recovered')!.json.timestamp as string;
    await until('checks after recovery', async () => (await logs(`checkKey=${key}&status=ok`)).filter((l) => l.checkedAt > recoveredAt).length >= 2, { timeoutMs: 30_000 });
    await until('deliveries drained', async () => (await svc.services.db('delivery_outbox').whereIn('status', ['pending', 'delivering'])).length === 0, { timeoutMs: 10_000 });

    const got = kinds(outage());
    const story = JSON.stringify(outage().map((r) => [r.json.timestamp, r.json.data.alert, r.json.data.error]));
    expect(got[0], story).to.equal('health.failed/down');
    expect(got.at(-1), story).to.equal('health.recovered/recovered');
    expect(got.filter((k) => k === 'health.failed/down'), story).to.have.length(1);
    expect(got.filter((k) => k === 'health.recovered/recovered'), story).to.have.length(1);
    const reminders = got.filter((k) => k === 'health.failed/reminder').length;
    expect(reminders, story).to.be.at.least(2);
    expect(got, story).to.have.length(reminders + 2);
    // reminders come at the configured interval, not on every failed check (the sweep runs every second);
    // how many depends on how long starting sshd took
    const sent = outage().filter((r) => r.json.data.alert !== 'recovered').map((r) => Date.parse(r.json.timestamp));
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!, story).to.be.at.least(REMINDER_SEC * 1000 - 100);
    const down = outage()[0]!.json;
    expect(down).to.include({ environmentId: envId });
    expect(down.data).to.include({ kind: 'server', serverId: ids.s2 });
    expect(down.data.message).to.match(/^server s2 \(.+\) is down: /);
    const conditions = (await svc.services.servers.findById(ids.s2))!.conditions;
    expect(conditions.find((c) => c.type === 'Ready')).to.include({ status: 'True', reason: 'Reachable' });
    expect(conditions.find((c) => c.type === 'Degraded')).to.include({ status: 'False' });
  });
});
