// Crash-loop detection on the fleet, through the trigger production uses: the deployment
// reconciler woken by the server's Docker events (the periodic resync is an hour away here). A
// busybox container that exits 1 a second after each start under its restart policy is reported
// Degraded/CrashLooping with one deployment.crash_looping event and one in-app notification that
// say why; a deploy of a command that stays up clears it. Restarts are read on the server.
import { expect } from 'chai';
import { serverExec } from '../../fleet/fleet.js';
import { until } from '../../support/receiver.js';
import type { StreamEvent } from '../../../controller/events/event-bus.js';
import { addService, cleanup, startWorld, type World } from '../deploy/deploy-world.js';

// exits 1 a second after each start; a stop (the fix's deploy) ends it at once, not after 10 s
const CRASHING = 'trap "exit 143" TERM; sleep 1 & wait; exit 1';

describe('crash-loop detection (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  const events: StreamEvent[] = [];
  let unsubscribe = () => {};

  before(async () => {
    w = await startWorld(); // SCHEDULER_DRIFT_CHECK_SEC 3600: whatever is seen within seconds came from a Docker event
    unsubscribe = w.s.events.subscribe((e) => { if (e.type === 'deployment.crash_looping') events.push(e); });
  });
  after(async () => {
    unsubscribe();
    await cleanup(w);
  });

  const inspect = async (name: string) => {
    const out = await serverExec('s1', ['docker', 'inspect', '--format', '{{.RestartCount}} {{.State.Status}} {{.HostConfig.RestartPolicy.Name}}', name]);
    const [restarts, status, policy] = out.trim().split(' ');
    return { restarts: Number(restarts), status, policy };
  };
  /** The deployment's Degraded condition as a user reads it (GET /api/services/{id}/deployments). */
  const degradedOf = async (serviceId: string) => {
    const res = await w.admin.get(`/api/services/${serviceId}/deployments`);
    expect(res.status, res.text).to.equal(200);
    return (res.body.items[0].conditions as Array<{ type: string; status: string; reason: string; message: string }>).find((c) => c.type === 'Degraded');
  };

  it('reports a container that keeps exiting as CrashLooping with the reason, and clears it once a fixed command is deployed', async () => {
    const started = Date.now();
    const box = await w.s.containerImages.insert({ environmentId: w.envId, imageName: w.fleet.images.busybox.replace(/:base$/, '') } as never);
    const { service, deployments: [dep] } = await addService(w, 'crashy', { servers: ['s1'], imageTag: 'base' });
    await w.s.db('services').where({ id: service.id }).update({ containerImageId: box.id, command: JSON.stringify(['sh', '-c', CRASHING]) });
    const deploy = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    expect(deploy.body.status, deploy.text).to.equal('succeeded'); // it stayed up long enough the first time
    const deployedAt = Date.now();

    let degraded: Awaited<ReturnType<typeof degradedOf>>;
    await until(async () => (degraded = await degradedOf(service.id))?.reason === 'CrashLooping', 60_000, 'Degraded CrashLooping');
    expect(degraded!.status).to.equal('True');
    const reportedAfter = Date.now() - deployedAt;
    expect(degraded!.message).to.match(new RegExp(`^container ${dep!.containerName} on server s1 restarted \\d+ times since it was deployed$`));
    const onServer = await inspect(dep!.containerName);
    expect(onServer.policy).to.equal('unless-stopped');
    expect(onServer.restarts).to.be.at.least(3);

    await until(() => events.some((e) => e.data.deploymentId === dep!.id), 10_000, 'the deployment.crash_looping event');
    const [event] = events.filter((e) => e.data.deploymentId === dep!.id);
    expect(event!.data).to.include({ serviceId: service.id, serverId: w.servers.s1, containerName: dep!.containerName });
    expect(event!.data.restartCount).to.be.at.least(3);
    let notes: Array<{ type: string; severity: string; title: string; message: string; data: Record<string, unknown> }> = [];
    await until(async () => {
      notes = (await w.admin.get(`/api/notifications?environmentId=${w.envId}&category=deployment`)).body.items
        .filter((n: { type: string }) => n.type === 'deployment.crash_looping');
      return notes.length > 0;
    }, 10_000, 'the crash-looping notification');
    expect(notes[0]).to.include({ severity: 'error', title: 'Container crash-looping' });
    expect(notes[0]!.message).to.match(/restarted \d+ times since it was deployed/);

    // the fix: a command that stays up, deployed as a user would
    const patched = await w.admin.patch(`/api/services/${service.id}`, { command: ['sleep', '2147483647'] });
    expect(patched.status, patched.text).to.equal(200);
    const fixed = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    expect(fixed.body.status, fixed.text).to.equal('succeeded');
    await until(async () => (degraded = await degradedOf(service.id))?.status === 'False', 30_000, 'Degraded to clear');
    expect(degraded!.reason).to.equal('AsDesired');
    expect(await inspect(dep!.containerName)).to.deep.include({ restarts: 0, status: 'running' });
    // one event for the whole loop, however many restarts it saw
    expect(events.filter((e) => e.data.deploymentId === dep!.id)).to.have.length(1);
    console.log(`      CrashLooping ${(reportedAfter / 1000).toFixed(1)} s after the deploy (${onServer.restarts} restarts), all in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
