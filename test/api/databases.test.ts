import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { apiToken, createEnvironment, startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { startS3Server, type S3Server } from '../support/s3-server.js';
import type { BackupRow } from '../../controller/store/repositories/backups.js';
import { checkedFetch } from '../support/openapi-check.js';
import { until } from '../support/until.js';
import { ABANDONED, tendLeases } from '../../controller/databases/lease.js';

describe('database, backup and object storage routes', function () {
  // start-up imports the service and s3rver: slow on a loaded machine, not a hang
  this.timeout(180_000);
  let w: RoleWorld;
  let s3: S3Server;
  const body = (extra: Record<string, unknown> = {}) => ({
    name: `db-${randomBytes(3).toString('hex')}`, type: 'postgres', databaseName: 'app', ...extra,
  });
  const createDb = async (extra: Record<string, unknown> = {}) => {
    const res = await w.operator.post(`/api/environments/${w.envId}/databases`, body(extra));
    expect(res.status, res.text).to.equal(201);
    return res.body;
  };
  const ops = () => w.svc.services.databaseOps;

  /** A succeeded backup row with a real local object, as a finished backup leaves it. */
  async function storedBackup(databaseId: string, startedAt: Date, extra: Partial<BackupRow> = {}) {
    const content = gzipSync(randomBytes(64));
    const objectKey = `${w.envId}/${databaseId}/${startedAt.getTime()}-${randomBytes(3).toString('hex')}.dump.gz`;
    const file = path.join(w.svc.stateDir, 'backups', objectKey);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    const row = await ops().ctx.backups.insert({
      databaseId, environmentId: w.envId, status: 'succeeded', trigger: 'manual', storage: 'local', objectKey,
      sizeBytes: content.length, sha256: createHash('sha256').update(content).digest('hex'), startedAt, finishedAt: startedAt, ...extra,
    });
    return { row, file, content };
  }

  before(async () => {
    w = await startWithRoles();
    s3 = await startS3Server(['backups', 'other']);
  });
  after(async () => {
    await w?.svc.stop();
    await s3?.stop();
  });

  it('creates a database with the data defaults, answers it credential-free with hasCredentials, and lets viewers read', async () => {
    await w.admin.patch(`/api/environments/${w.envId}/settings/data`, { defaultMonitoringEnabled: true, defaultCollectionIntervalSec: 120 });
    const created = await createDb({ username: 'app', password: 'pw-secret-123456' });
    expect(created).to.include({ type: 'postgres', databaseName: 'app', username: 'app', hasCredentials: true, monitoringEnabled: true, collectionIntervalSec: 120 });
    expect(created).to.not.have.any.keys('password', 'passwordEnc');
    const got = await w.viewer.get(`/api/databases/${created.id}`);
    expect(got.status).to.equal(200);
    expect(got.text).to.not.include('pw-secret-123456');
    const list = await w.viewer.get(`/api/environments/${w.envId}/databases`);
    expect(list.body.items.map((d: { id: string }) => d.id)).to.include(created.id);
    expect(list.text).to.not.include('pw-secret-123456');
    const row = await ops().ctx.databases.findById(created.id);
    expect(row!.passwordEnc).to.be.a('string').and.not.include('pw-secret-123456');
    expect(w.svc.logs.join('')).to.not.include('pw-secret-123456');
  });

  it('updates (a null password removes the credentials, generation counts) and deletes; viewers may not write', async () => {
    const db = await createDb({ password: 'x-1234567' });
    expect((await w.viewer.post(`/api/environments/${w.envId}/databases`, body())).status).to.equal(403);
    expect((await w.viewer.patch(`/api/databases/${db.id}`, { port: 5433 })).status).to.equal(403);
    const patched = await w.operator.patch(`/api/databases/${db.id}`, { password: null, port: 5433 });
    expect(patched.body).to.include({ hasCredentials: false, port: 5433, generation: 2 });
    expect((await w.viewer.delete(`/api/databases/${db.id}`)).status).to.equal(403);
    expect((await w.operator.delete(`/api/databases/${db.id}`)).status).to.equal(204);
    expect((await w.viewer.get(`/api/databases/${db.id}`)).status).to.equal(404);
  });

  it('validates: unknown type, a server of another environment, unknown and read-only fields, duplicate names', async () => {
    const other = await createEnvironment(w.admin);
    const server = await w.admin.post(`/api/environments/${other.id}/servers`, { name: 'elsewhere', hostname: '10.0.0.9' });
    expect(server.status, server.text).to.equal(201);
    const cases: [Record<string, unknown>, string, number][] = [
      [{ type: 'oracle' }, 'type', 400], [{ serverId: server.body.id }, 'serverId', 400], [{ bogus: 1 }, 'bogus', 400],
      [{ port: 70000 }, 'port', 400], [{ hasCredentials: true }, 'hasCredentials', 422],
    ];
    for (const [extra, field, status] of cases) {
      const res = await w.operator.post(`/api/environments/${w.envId}/databases`, body(extra));
      expect(res.status, JSON.stringify(extra)).to.equal(status);
      expect(res.body.field).to.equal(field);
    }
    const b = body();
    await w.operator.post(`/api/environments/${w.envId}/databases`, b);
    const dup = await w.operator.post(`/api/environments/${w.envId}/databases`, b);
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ code: 'CONFLICT', field: 'name' });
  });

  it('an environment-limited token lists its environment\'s databases only', async () => {
    const me = (await w.admin.get('/api/auth/me')).body;
    const limited = await apiToken(w.admin, me.id, { environmentIds: [w.envId] });
    expect((await limited.get(`/api/environments/${w.envId}/databases`)).status).to.equal(200);
    const other = await createEnvironment(w.admin);
    expect((await limited.get(`/api/environments/${other.id}/databases`)).status).to.equal(403);
  });

  it('tests a host/port database by connecting to it, and reports a closed port as not ok', async () => {
    const listener = net.createServer((c) => c.end()).listen(0, '127.0.0.1');
    await new Promise((r) => listener.once('listening', r));
    const port = (listener.address() as net.AddressInfo).port;
    const open = await createDb({ host: '127.0.0.1', port });
    const ok = await w.operator.post(`/api/databases/${open.id}/test`);
    expect(ok.body).to.include({ ok: true });
    listener.close();
    await new Promise((r) => listener.once('close', r));
    const closed = await w.operator.post(`/api/databases/${open.id}/test`);
    expect(closed.body.ok).to.equal(false);
    expect(closed.body.message).to.include('ECONNREFUSED');
    expect((await w.viewer.post(`/api/databases/${open.id}/test`)).status).to.equal(403);
  });

  it('monitors a host/port database once per interval: reachable while it answers, then unreachable, never sized', async () => {
    const listener = net.createServer((c) => c.end()).listen(0, '127.0.0.1');
    await new Promise((r) => listener.once('listening', r));
    const db = await createDb({ host: '127.0.0.1', port: (listener.address() as net.AddressInfo).port, monitoringEnabled: true, collectionIntervalSec: 60 });
    const now = new Date();
    await ops().tick(now);
    await ops().tick(now); // a second tick of the same instant finds the probe already claimed
    const probed = async () => (await w.viewer.get(`/api/databases/${db.id}`)).body.status;
    let status = await until('a monitoring probe', async () => { const s = await probed(); return s.monitoring && s; });
    expect(status.monitoring).to.include({ reachable: true, sizeBytes: null });
    expect(status.monitoring.sizeMessage).to.include('only databases in a container');
    expect(status.conditions.find((c: any) => c.type === 'Reachable')).to.include({ status: true, reason: 'Answered' });
    const row = await ops().ctx.databases.findById(db.id);
    expect(row!.nextMonitorAt!.getTime()).to.equal(now.getTime() + 60_000);

    listener.close();
    await new Promise((r) => listener.once('close', r));
    const first = status.monitoring.checkedAt;
    await ops().tick(new Date(now.getTime() + 60_000));
    status = await until('a second monitoring probe', async () => { const s = await probed(); return s.monitoring.checkedAt !== first && s; });
    expect(status.monitoring).to.include({ reachable: false, sizeBytes: null });
    expect(status.conditions.find((c: any) => c.type === 'Reachable')).to.include({ status: false, reason: 'Unreachable' });
  });

  it('refuses a backup of a database with no container (409), and viewers may not start one', async () => {
    const db = await createDb({ host: 'db.internal', port: 5432 });
    expect((await w.viewer.post(`/api/databases/${db.id}/backups`, {})).status).to.equal(403);
    const res = await w.operator.post(`/api/databases/${db.id}/backups`, {});
    expect(res.status).to.equal(409);
    expect(res.body.message).to.include('no server and container');
    expect((await w.viewer.get(`/api/databases/${db.id}/backups`)).body).to.include({ total: 0 });
  });

  it('schedules in the database\'s time zone, refuses bad cron expressions and zones', async () => {
    const db = await createDb();
    const bad = await w.operator.put(`/api/databases/${db.id}/backup-schedule`, { cron: 'every day', enabled: true });
    expect(bad.status).to.equal(400);
    expect(bad.body.field).to.equal('cron');
    const zone = await w.operator.put(`/api/databases/${db.id}/backup-schedule`, { cron: '0 3 * * *', timezone: 'Mars/Olympus', enabled: true });
    expect(zone.body.field).to.equal('timezone');
    expect((await w.viewer.put(`/api/databases/${db.id}/backup-schedule`, { cron: '0 3 * * *', enabled: true })).status).to.equal(403);
    const set = await w.operator.put(`/api/databases/${db.id}/backup-schedule`, { cron: '0 3 * * *', timezone: 'Asia/Tokyo', enabled: true });
    expect(set.status, set.text).to.equal(200);
    // 03:00 in Tokyo is 18:00 UTC
    expect(new Date(set.body.nextRunAt).getUTCHours()).to.equal(18);
    expect((await w.viewer.get(`/api/databases/${db.id}/backup-schedule`)).body).to.include({ cron: '0 3 * * *', timezone: 'Asia/Tokyo', enabled: true });
    const off = await w.operator.put(`/api/databases/${db.id}/backup-schedule`, { cron: '0 3 * * *', enabled: false });
    expect(off.body.nextRunAt).to.equal(null);
  });

  it('retention: the preview names what rotation deletes, rotation deletes exactly that, pinned backups stay', async () => {
    const db = await createDb();
    const day = 86_400_000;
    const now = Date.now();
    const b = [];
    for (let i = 0; i < 5; i++) b.push(await storedBackup(db.id, new Date(now - i * day - 1000)));
    expect((await w.viewer.post(`/api/backups/${b[3].row.id}/pin`)).status).to.equal(403);
    expect((await w.operator.post(`/api/backups/${b[3].row.id}/pin`)).body.pinned).to.equal(true);
    expect((await w.viewer.put(`/api/databases/${db.id}/backup-retention`, { keepLast: 2 })).status).to.equal(403);
    const set = await w.operator.put(`/api/databases/${db.id}/backup-retention`, { keepLast: 2, keepDays: 30 });
    expect(set.body).to.deep.equal({ keepLast: 2, keepDays: 30 });
    const preview = await w.viewer.get(`/api/databases/${db.id}/backups/rotation-preview`);
    const doomed = preview.body.items.map((x: { id: string }) => x.id).sort();
    expect(doomed).to.deep.equal([b[2].row.id, b[4].row.id].sort());
    expect((await w.viewer.post(`/api/databases/${db.id}/backups/rotate`)).status).to.equal(403);
    const rotated = await w.operator.post(`/api/databases/${db.id}/backups/rotate`);
    expect(rotated.body.deleted.map((x: { id: string }) => x.id).sort()).to.deep.equal(doomed);
    expect(fs.existsSync(b[2].file)).to.equal(false);
    expect(fs.existsSync(b[3].file)).to.equal(true);
    const left = (await w.viewer.get(`/api/databases/${db.id}/backups`)).body.items.map((x: { id: string }) => x.id);
    expect(left).to.deep.equal([b[0].row.id, b[1].row.id, b[3].row.id]);
    expect((await w.operator.delete(`/api/backups/${b[3].row.id}`)).status).to.equal(409); // pinned
    expect((await w.operator.post(`/api/backups/${b[3].row.id}/unpin`)).body.pinned).to.equal(false);
    expect((await w.operator.delete(`/api/backups/${b[3].row.id}`)).status).to.equal(204);
    expect(fs.existsSync(b[3].file)).to.equal(false);
  });

  it('downloads a backup as a stream only while data.allowBackupDownload is true', async () => {
    const db = await createDb();
    const { row, content } = await storedBackup(db.id, new Date());
    const refused = await w.operator.get(`/api/backups/${row.id}/download`);
    expect(refused.status).to.equal(403);
    await w.admin.patch(`/api/environments/${w.envId}/settings/data`, { allowBackupDownload: true });
    expect((await w.viewer.get(`/api/backups/${row.id}/download`)).status).to.equal(403);
    const res = await checkedFetch(`${w.svc.url}/api/backups/${row.id}/download`, { headers: { authorization: `Bearer ${w.operator.token}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/octet-stream');
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="${row.id}.dump.gz"`);
    expect(Buffer.from(await res.arrayBuffer()).equals(content)).to.equal(true);
    await w.admin.patch(`/api/environments/${w.envId}/settings/data`, { allowBackupDownload: false });
  });

  it('restore needs the database name as confirmation and a succeeded backup; a drill needs a backup', async () => {
    const db = await createDb({ serverId: null });
    const { row } = await storedBackup(db.id, new Date());
    expect((await w.viewer.post(`/api/backups/${row.id}/restore`, { target: 'database', confirm: db.name })).status).to.equal(403);
    const unconfirmed = await w.operator.post(`/api/backups/${row.id}/restore`, { target: 'database', confirm: 'other' });
    expect(unconfirmed.status).to.equal(400);
    expect(unconfirmed.body.field).to.equal('confirm');
    const failed = await storedBackup(db.id, new Date(), { status: 'failed' });
    expect((await w.operator.post(`/api/backups/${failed.row.id}/restore`, { target: 'scratch' })).status).to.equal(409);
    const empty = await createDb();
    expect((await w.operator.post(`/api/databases/${empty.id}/restore-drill/run`)).status).to.equal(409);
    const drill = await w.operator.put(`/api/databases/${db.id}/restore-drill`, { cron: '30 4 * * 0', enabled: true, checkCommand: 'select count(*) from items' });
    expect(drill.body).to.include({ cron: '30 4 * * 0', enabled: true, checkCommand: 'select count(*) from items' });
    expect((await w.viewer.get(`/api/databases/${db.id}/restore-drills`)).body).to.include({ total: 0 });
  });

  it('a due schedule runs once per occurrence even when two ticks race, and a backup that cannot start alerts', async () => {
    const db = await createDb({ host: 'db.internal', port: 5432 });
    await w.operator.put(`/api/databases/${db.id}/backup-schedule`, { cron: '*/5 * * * *', enabled: true });
    await ops().ctx.databases.update(db.id, { nextBackupAt: new Date(Date.now() - 60_000) });
    const before = (await w.svc.services.events.since(0, w.envId, 10_000)).filter((e) => e.type === 'backup.failed' && e.data.databaseId === db.id);
    await Promise.all([ops().tick(), ops().tick()]);
    await ops().stop();
    const after = (await w.svc.services.events.since(0, w.envId, 10_000)).filter((e) => e.type === 'backup.failed' && e.data.databaseId === db.id);
    expect(after.length - before.length).to.equal(1);
    expect(after.at(-1)!.data.message).to.include('no server and container');
    const next = (await ops().ctx.databases.findById(db.id))!.nextBackupAt!;
    expect(next.getTime()).to.be.greaterThan(Date.now());
  });

  it('a backup or drill whose replica stopped (lease ran out) is failed loudly by a live replica, its partial file removed; live runs are left', async () => {
    const db = await createDb();
    const dbId = db.id as string;
    const ago = new Date(Date.now() - 60_000);
    const running = (extra: Partial<BackupRow>) => ops().ctx.backups.insert({
      databaseId: dbId, environmentId: w.envId, status: 'running', trigger: 'schedule', storage: 'local', objectKey: `k-${randomBytes(3).toString('hex')}`, ...extra,
    });
    const dead = await running({ owner: 'dead-replica', heartbeatAt: ago });
    // what the dead replica's local store had written so far
    const partial = path.join(w.svc.stateDir, 'backups', `${dead.objectKey}.partial`);
    fs.mkdirSync(path.dirname(partial), { recursive: true });
    fs.writeFileSync(partial, 'half a dump');
    const legacy = await running({ startedAt: ago }); // from before leases: its start time is its last sign of life
    const alive = await running({ owner: 'live-replica', heartbeatAt: new Date() });
    const mine = await running({ owner: ops().ctx.owner, heartbeatAt: ago }); // this process renews it first
    const drill = await ops().ctx.restores.insert({ databaseId: dbId, target: 'drill', status: 'running', owner: 'dead-replica', heartbeatAt: ago });
    const eventsOf = async () => (await w.svc.services.events.since(0, w.envId, 10_000)).filter((e) => e.data.databaseId === dbId);
    const before = (await eventsOf()).length;

    // this service's own lease timer may sweep too: the outcome is the same whoever sweeps first
    await ops().ctx.backups.renewLeases('live-replica'); // what the live replica does meanwhile
    await tendLeases(ops().ctx, 5000);
    const status = async (id: string) => (await w.viewer.get(`/api/backups/${id}`)).body;
    for (const id of [dead.id, legacy.id]) expect(await status(id)).to.include({ status: 'failed', error: ABANDONED });
    expect(fs.existsSync(partial)).to.equal(false);
    expect((await status(alive.id)).status).to.equal('running');
    expect((await status(mine.id)).status).to.equal('running');
    expect((await ops().ctx.backups.findById(mine.id))!.heartbeatAt!.getTime()).to.be.greaterThan(ago.getTime());
    expect((await w.viewer.get(`/api/restores/${drill.id}`)).body).to.include({ status: 'failed', error: ABANDONED });
    const conditions = (await w.viewer.get(`/api/databases/${dbId}`)).body.status.conditions;
    expect(conditions.find((c: any) => c.type === 'Degraded')).to.include({ status: true });
    expect(conditions.find((c: any) => c.type === 'DrillSucceeded')).to.include({ status: false, reason: 'DrillFailed' });
    const events = (await eventsOf()).slice(before).map((e) => `${e.type} ${e.data.backupId ?? e.data.restoreId}`);
    expect(events.sort()).to.deep.equal([`backup.drill_failed ${drill.id}`, `backup.failed ${dead.id}`, `backup.failed ${legacy.id}`].sort());
    // failed once: a second sweep (another replica's) finds nothing more
    await ops().ctx.backups.renewLeases('live-replica');
    expect(await tendLeases(ops().ctx, 5000)).to.equal(0);
    await ops().ctx.backups.update(alive.id, { status: 'failed' });
    await ops().ctx.backups.update(mine.id, { status: 'failed' });
  });

  it('object storage: admin only, secret write-only, test and bucket list against an S3-compatible server', async () => {
    expect((await w.operator.get('/api/settings/storage-space')).status).to.equal(403);
    expect((await w.admin.get('/api/settings/storage-space')).body).to.include({ configured: false, hasSecretAccessKey: false });
    const cfg = { endpoint: s3.endpoint, region: s3.region, bucket: 'backups', accessKeyId: s3.accessKeyId, forcePathStyle: true };
    expect((await w.admin.put('/api/settings/storage-space', cfg)).status).to.equal(409); // no secret the first time
    expect((await w.operator.put('/api/settings/storage-space', { ...cfg, secretAccessKey: s3.secretAccessKey })).status).to.equal(403);
    const saved = await w.admin.put('/api/settings/storage-space', { ...cfg, secretAccessKey: s3.secretAccessKey });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body).to.include({ configured: true, hasSecretAccessKey: true, bucket: 'backups' });
    expect(saved.body).to.not.have.any.keys('secretAccessKey', 'secretAccessKeyEnc');
    expect((await w.admin.post('/api/settings/storage-space/test')).body).to.include({ ok: true });
    expect((await w.admin.get('/api/settings/storage-space/buckets')).body.items).to.include.members(['backups', 'other']);
    expect((await w.viewer.get(`/api/environments/${w.envId}/storage`)).body).to.deep.equal({ enabled: false, bucket: null, prefix: null });
    expect((await w.operator.patch(`/api/environments/${w.envId}/storage`, { enabled: true })).status).to.equal(403);
    const env = await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: true, bucket: 'missing-bucket' });
    expect(env.body).to.include({ enabled: true, bucket: 'missing-bucket' });
    expect((await w.admin.post(`/api/environments/${w.envId}/storage/test`)).body.ok).to.equal(false);
    // a prefix is a key path of its own: no way up, no absolute path
    for (const prefix of ['..', '../../../etc', 'a/../b', './x', '/etc', 'a//b', 'a b']) {
      const bad = await w.admin.patch(`/api/environments/${w.envId}/storage`, { prefix });
      expect(bad.status, prefix).to.equal(400);
      expect(bad.body).to.include({ code: 'VALIDATION_ERROR', field: 'prefix' });
    }
    expect((await w.admin.patch(`/api/environments/${w.envId}/storage`, { prefix: 'team-a/backups.v2/' })).status).to.equal(200);
    await w.admin.patch(`/api/environments/${w.envId}/storage`, { bucket: 'other', prefix: 'stevedore' });
    expect((await w.admin.post(`/api/environments/${w.envId}/storage/test`)).body).to.include({ ok: true });
    expect((await w.admin.get(`/api/environments/${w.envId}/storage/buckets`)).body.items).to.include('other');
    // keeping the secret: a save without it keeps the stored one working
    await w.admin.put('/api/settings/storage-space', cfg);
    expect((await w.admin.post('/api/settings/storage-space/test')).body).to.include({ ok: true });
    await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: false });
    expect((await w.operator.delete('/api/settings/storage-space')).status).to.equal(403);
    expect((await w.admin.delete('/api/settings/storage-space')).status).to.equal(204);
    expect((await w.admin.get('/api/settings/storage-space')).body.configured).to.equal(false);
    expect((await w.admin.post('/api/settings/storage-space/test')).status).to.equal(404);
    expect(w.svc.logs.join('')).to.not.include(s3.secretAccessKey + '"');
  });
});
