// Volumes through the API (docs/volumes.md): the kind's CRUD with its rules, a service mounting a
// volume by name (placed on its server only, never on another), the container policy's fence on
// other environments' managed volumes, and the roles and 404s of the backup, restore and drill
// routes. What touches a server (creation before the container, copies, restores) is on the
// fleet: test/e2e/volumes.test.ts.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { createImage, expectError } from '../support/catalog-fixtures.js';
import { until } from '../support/until.js';

describe('volume routes', function () {
  this.timeout(120_000);
  let w: RoleWorld;
  let imageId: string;
  let s1: string;
  let s2: string;
  const MISSING = '00000000-0000-4000-8000-000000000000';

  const server = async (name: string) => {
    const res = await w.admin.post(`/api/environments/${w.envId}/servers`, { name, hostname: `${name}.internal` });
    expect(res.status, res.text).to.equal(201);
    return res.body.id as string;
  };
  const volume = async (body: Record<string, unknown>) => w.operator.post(`/api/environments/${w.envId}/volumes`, body);
  const service = (name: string, volumes: unknown[]) =>
    w.operator.post(`/api/environments/${w.envId}/services`, { name, containerImageId: imageId, imageTag: 'v1', volumes });

  before(async () => {
    w = await startWithRoles();
    imageId = (await createImage(w.admin, w.envId, 'registry.local:5000/acme/files')).id;
    s1 = await server('vol-s1');
    s2 = await server('vol-s2');
  });
  after(() => w?.svc.stop());

  it('creates a volume on a server of its environment, with defaults, its Docker name and the backup block; viewers read it', async () => {
    const res = await volume({ name: 'data', serverId: s1, labels: { team: 'files' }, backup: { schedule: '0 3 * * *', keepLast: 7 } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ name: 'data', serverId: s1, driver: 'local', dockerName: `stevedore-${w.envId}-data`, environmentId: w.envId });
    expect(res.body.labels).to.deep.equal({ team: 'files' });
    expect(res.body.backup).to.deep.equal({ schedule: '0 3 * * *', keepLast: 7, consistency: 'stop' });
    const got = await w.viewer.get(`/api/volumes/${res.body.id}`);
    expect(got.status).to.equal(200);
    expect(got.body.dockerName).to.equal(`stevedore-${w.envId}-data`);
    const list = await w.viewer.get(`/api/environments/${w.envId}/volumes`);
    expect(list.body.items.map((v: { name: string }) => v.name)).to.include('data');
  });

  it('refuses what cannot be used, naming the field, and writes nothing', async () => {
    const other = (await w.admin.post('/api/environments', { name: `vol-other-${randomBytes(3).toString('hex')}` })).body.id as string;
    const foreign = (await w.admin.post(`/api/environments/${other}/servers`, { name: 'far', hostname: 'far.internal' })).body.id as string;
    expectError(await volume({ name: 'x1', serverId: foreign }), 400, 'VALIDATION_ERROR', 'serverId');
    expectError(await volume({ name: 'x2', serverId: s1, backup: { schedule: 'every night' } }), 400, 'VALIDATION_ERROR', 'backup.schedule');
    expectError(await volume({ name: 'x3', serverId: s1, backup: { schedule: '0 3 * * *', consistency: 'command' } }), 400, 'VALIDATION_ERROR', 'backup.command');
    expectError(await volume({ name: 'x4', serverId: s1, backup: { schedule: '0 3 * * *', consistency: 'sometimes' } }), 400, 'VALIDATION_ERROR');
    expectError(await volume({ name: 'x5', serverId: s1, labels: { 'stevedore.volume-id': MISSING } }), 400, 'VALIDATION_ERROR', 'labels');
    expectError(await volume({ name: '../x', serverId: s1 }), 400, 'VALIDATION_ERROR');
    const list = await w.viewer.get(`/api/environments/${w.envId}/volumes`);
    expect(list.body.items.map((v: { name: string }) => v.name)).to.not.include.members(['x1', 'x2', 'x3', 'x4', 'x5']);
    expect((await volume({ name: 'data', serverId: s1 })).status).to.equal(409);
  });

  it('its server and name are fixed once created (422), the rest changes', async () => {
    const { id } = (await volume({ name: 'fixed', serverId: s1 })).body;
    expect((await w.operator.patch(`/api/volumes/${id}`, { serverId: s2 })).status).to.equal(422);
    expect((await w.operator.patch(`/api/volumes/${id}`, { name: 'moved' })).status).to.equal(422);
    const changed = await w.operator.patch(`/api/volumes/${id}`, { backup: { schedule: '*/5 * * * *', consistency: 'none' } });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.backup).to.deep.equal({ schedule: '*/5 * * * *', consistency: 'none' });
  });

  it('a drill schedule and check command in the backup block: a bad cron is 400 naming backup.drillSchedule', async () => {
    expectError(await volume({ name: 'd1', serverId: s1, backup: { schedule: '0 3 * * *', drillSchedule: 'weekly' } }), 400, 'VALIDATION_ERROR', 'backup.drillSchedule');
    expectError(await volume({ name: 'd2', serverId: s1, backup: { schedule: '0 3 * * *', drillCheckCommand: '' } }), 400, 'VALIDATION_ERROR');
    expect((await w.viewer.get(`/api/environments/${w.envId}/volumes`)).body.items.map((v: { name: string }) => v.name)).to.not.include.members(['d1', 'd2']);
    const res = await volume({ name: 'drilled', serverId: s1, backup: { schedule: '0 3 * * *', drillSchedule: '0 4 * * 0', drillCheckCommand: 'test -f a.txt' } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.backup).to.deep.equal({ schedule: '0 3 * * *', consistency: 'stop', drillSchedule: '0 4 * * 0', drillCheckCommand: 'test -f a.txt' });
    expectError(await w.operator.patch(`/api/volumes/${res.body.id}`, { backup: { schedule: '0 3 * * *', drillSchedule: '61 * * * *' } }), 400, 'VALIDATION_ERROR', 'backup.drillSchedule');
    expect((await w.viewer.get(`/api/volumes/${res.body.id}`)).body.backup.drillSchedule).to.equal('0 4 * * 0');
  });

  it('a scheduled drill with no succeeded backup is recorded failed with the reason, announced, never green', async () => {
    const ops = w.svc.services.volumeOps;
    const res = await volume({ name: 'never-backed-up', serverId: s1, backup: { schedule: '0 3 * * *', drillSchedule: '* * * * * *' } });
    const id = res.body.id as string;
    const drills = async () => (await w.viewer.get(`/api/volumes/${id}/drills`)).body.items as any[];
    expect(await drills()).to.deep.equal([]);
    // the scheduler's tick (this service runs it too, claimed once: whichever tick claims it runs it)
    const drill = await until('a scheduled drill recorded', async () => {
      await ops.tick(new Date(Date.now() + 1500));
      return (await drills())[0];
    }, { timeoutMs: 20_000, everyMs: 200 });
    expect(drill).to.include({ status: 'failed', target: 'drill', backupId: null });
    expect(drill.error).to.match(/no succeeded backup of volume never-backed-up/);
    // the drill's row is written first, its condition right after: wait for the condition itself
    const condition = await until('the DrillSucceeded condition', async () =>
      ((await w.viewer.get(`/api/volumes/${id}`)).body.status?.conditions as any[] | undefined)?.find((c) => c.type === 'DrillSucceeded'),
    { timeoutMs: 10_000, everyMs: 100 });
    expect(condition).to.include({ status: false, reason: 'DrillFailed' });
    await until('the backup.drill_failed event', async () =>
      (await w.svc.services.events.since(0, w.envId, 10_000)).some((e) => e.type === 'backup.drill_failed' && e.data.restoreId === drill.id),
    { timeoutMs: 10_000, everyMs: 100 });
    await w.operator.patch(`/api/volumes/${id}`, { backup: null });
    expectError(await w.viewer.get(`/api/volumes/${MISSING}/drills`), 404, 'NOT_FOUND');
    expectError(await w.admin.withToken(null).get(`/api/volumes/${id}/drills`), 401, 'UNAUTHORIZED');
  });

  it("a scheduled drill's check command obeys operations.allowExec: refused, recorded failed, nothing restored", async () => {
    const ops = w.svc.services.volumeOps;
    const res = await volume({ name: 'exec-guarded', serverId: s1, backup: { schedule: '0 3 * * *', drillCheckCommand: 'cat secret.txt' } });
    const b = await ops.ctx.backups.insert({
      volumeId: res.body.id, environmentId: w.envId, status: 'succeeded', trigger: 'manual', consistency: 'stop', storage: 'local', objectKey: 'y.tar.gz', sha256: 'ab',
    });
    await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: false });
    try {
      const drill = await ops.scheduledDrill((await w.svc.services.volumes.findById(res.body.id))!);
      expect(drill).to.include({ status: 'failed', target: 'drill', backupId: b.id, newDockerName: null });
      expect(drill.error).to.match(/operations.allowExec is off/);
    } finally {
      await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: true });
    }
    const listed = (await w.viewer.get(`/api/volumes/${res.body.id}/drills`)).body;
    expect(listed).to.include({ total: 1 });
  });

  it('a service mounts a volume by name, and is placed on its server only', async () => {
    const { id: volId } = (await volume({ name: 'uploads', serverId: s1 })).body;
    expectError(await service('ghost', [{ volume: 'nope', mount: '/data' }]), 400, 'VALIDATION_ERROR', 'volumes.0');
    expectError(await service('bad-mount', [{ volume: 'uploads', mount: 'relative' }]), 400, 'VALIDATION_ERROR');
    const created = await service('files', [{ volume: 'uploads', mount: '/data' }, '/srv/cache']);
    expect(created.status, created.text).to.equal(201);
    expect(created.body.volumes).to.deep.equal([{ volume: 'uploads', mount: '/data' }, '/srv/cache']);
    const elsewhere = await w.operator.post(`/api/services/${created.body.id}/deployments`, { serverId: s2, containerName: 'files' });
    expectError(elsewhere, 400, 'VALIDATION_ERROR', 'serverId');
    expect(elsewhere.body.message).to.match(/lives on server .* runs only there/);
    const there = await w.operator.post(`/api/services/${created.body.id}/deployments`, { serverId: s1, containerName: 'files' });
    expect(there.status, there.text).to.equal(201);
    // a volume still mounted is not deleted (nor its data destroyed)
    expectError(await w.operator.delete(`/api/volumes/${volId}`), 409, 'CONFLICT');
    expectError(await w.operator.post(`/api/volumes/${volId}/destroy`, { confirm: 'uploads' }), 409, 'CONFLICT');
    expect((await w.viewer.get(`/api/volumes/${volId}`)).status).to.equal(200);
  });

  it('a service that mounts volumes of two servers, or moves to a server its volume is not on, is refused', async () => {
    await volume({ name: 'left', serverId: s1 });
    await volume({ name: 'right', serverId: s2 });
    expectError(await service('split', [{ volume: 'left', mount: '/a' }, { volume: 'right', mount: '/b' }]), 400, 'VALIDATION_ERROR', 'volumes');
    const svc = (await service('lonely', [])).body;
    await w.operator.post(`/api/services/${svc.id}/deployments`, { serverId: s2, containerName: 'lonely' });
    const patched = await w.operator.patch(`/api/services/${svc.id}`, { volumes: [{ volume: 'left', mount: '/a' }] });
    expectError(patched, 400, 'VALIDATION_ERROR', 'volumes');
    expect((await w.viewer.get(`/api/services/${svc.id}`)).body.volumes).to.deep.equal([]);
  });

  it("another environment's managed volume is refused by the container policy, the own one is not", async () => {
    const other = `stevedore-${MISSING}-data:/data`;
    const refused = await service('thief', [other]);
    expectError(refused, 400, 'VALIDATION_ERROR', 'volumes.0');
    expect(refused.body.message).to.match(/managed volume of another environment.*container policy baseline/);
    const own = await service('owner', [`stevedore-${w.envId}-data:/data`]);
    expect(own.status, own.text).to.equal(201);
    const compose = await w.operator.post(`/api/environments/${w.envId}/services`, {
      name: 'thief-compose', containerImageId: imageId, imageTag: 'v1',
      composeTemplate: `services:\n  thief-compose:\n    image: x\n    volumes: [loot:/data]\nvolumes:\n  loot:\n    external: true\n    name: stevedore-${MISSING}-data\n`,
    });
    expectError(compose, 400, 'VALIDATION_ERROR', 'composeTemplate');
  });

  it('backup, restore and drill routes: 404 for what does not exist, 403 for a viewer, 401 without a token', async () => {
    const { id } = (await volume({ name: 'guarded', serverId: s1 })).body;
    expectError(await w.operator.post(`/api/volumes/${MISSING}/backups`, {}), 404, 'NOT_FOUND');
    expectError(await w.viewer.get(`/api/volumes/${MISSING}/backups`), 404, 'NOT_FOUND');
    expectError(await w.operator.post(`/api/volume-backups/${MISSING}/restore`, { confirm: 'x' }), 404, 'NOT_FOUND');
    expectError(await w.operator.post(`/api/volume-backups/${MISSING}/drill`, {}), 404, 'NOT_FOUND');
    expectError(await w.viewer.get(`/api/volume-restores/${MISSING}`), 404, 'NOT_FOUND');
    expectError(await w.viewer.post(`/api/volumes/${id}/backups`, {}), 403, 'FORBIDDEN_ROLE');
    expectError(await w.viewer.post(`/api/volumes/${id}/destroy`, { confirm: 'guarded' }), 403, 'FORBIDDEN_ROLE');
    expectError(await w.viewer.post(`/api/environments/${w.envId}/volumes`, { name: 'v', serverId: s1 }), 403, 'FORBIDDEN_ROLE');
    expectError(await w.admin.withToken(null).get(`/api/volumes/${id}/backups`), 401, 'UNAUTHORIZED');
    const listed = await w.viewer.get(`/api/volumes/${id}/backups`);
    expect(listed.status).to.equal(200);
    expect(listed.body).to.include({ total: 0 });
    // destroying the data needs the volume's name
    expectError(await w.operator.post(`/api/volumes/${id}/destroy`, { confirm: 'not-it' }), 400, 'VALIDATION_ERROR', 'confirm');
    // a record of a finished backup: restore needs the name, a failed backup restores nothing
    const failed = await w.svc.services.volumeOps.ctx.backups.insert({
      volumeId: id, environmentId: w.envId, status: 'failed', trigger: 'manual', consistency: 'stop', storage: 'local', objectKey: 'x.tar.gz', error: 'boom',
    });
    expectError(await w.operator.post(`/api/volume-backups/${failed.id}/restore`, { confirm: 'wrong' }), 400, 'VALIDATION_ERROR', 'confirm');
    expectError(await w.operator.post(`/api/volume-backups/${failed.id}/restore`, { confirm: 'guarded' }), 409, 'CONFLICT');
    expectError(await w.operator.post(`/api/volume-backups/${failed.id}/drill`, {}), 409, 'CONFLICT');
    // a drill's check command runs over the volume's data: refused with exec, for everyone
    await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: false });
    const noExec = await w.admin.post(`/api/volume-backups/${failed.id}/drill`, { checkCommand: 'cat secret.txt' });
    await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: true });
    expectError(noExec, 403, 'FORBIDDEN_SCOPE');
    const pinned = await w.operator.post(`/api/volume-backups/${failed.id}/pin`);
    expect(pinned.body.pinned).to.equal(true);
    expectError(await w.operator.delete(`/api/volume-backups/${failed.id}`), 409, 'CONFLICT');
    await w.operator.post(`/api/volume-backups/${failed.id}/unpin`);
    expect((await w.operator.delete(`/api/volume-backups/${failed.id}`)).status).to.equal(204);
    // a volume nobody mounts: the record goes, its Docker volume stays on the server
    expect((await w.operator.delete(`/api/volumes/${id}`)).status).to.equal(204);
    expectError(await w.viewer.get(`/api/volumes/${id}`), 404, 'NOT_FOUND');
  });
});
