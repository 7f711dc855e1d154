// Backups proven restorable, on the fleet: a real PostgreSQL container on s1 (image built from
// this machine's binaries by test/fleet/pg-image.sh), dumps streamed over SSH to local storage
// and to an S3-compatible server (s3rver, standing in for S3), restores into a scratch container
// and into the database itself, a failing dump, retention with a pinned backup, and a scheduled
// restore drill. Everything is checked on the server (docker exec) or in the store itself.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { serverExec } from '../../fleet/fleet.js';
import { startS3Server, type S3Server } from '../../support/s3-server.js';
import { cleanup, startWorld, type World } from '../deploy/deploy-world.js';
import { until } from '../../support/until.js';
import { finished as finishedRun, fleetImage, healthy, WAIT } from './database-world.js';

const run = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('database backups on the fleet', function () {
  this.timeout(180_000);
  let w: World;
  let s3: S3Server;
  let image: string;
  let container: string;
  let dbId: string;
  // one backup per store, made by whichever test needs it first (each test also runs alone)
  const made: Record<string, Promise<any>> = {};
  const backupIn = (storage: 'local' | 's3') => (made[storage] ??= backup(dbId, storage));

  const psql = async (c: string, sql: string) =>
    (await serverExec('s1', ['docker', 'exec', c, 'psql', '-U', 'postgres', '-d', 'shop', '-tAc', sql])).trim();

  const finished = (apiPath: string) => finishedRun(w, apiPath);
  async function backup(id: string, storage: 'local' | 's3') {
    const res = await w.admin.post(`/api/databases/${id}/backups`, { storage });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.status).to.equal('running');
    return finished(`/api/backups/${res.body.id}`);
  }

  before(async function () {
    this.timeout(300_000); // a fresh fleet builds the PostgreSQL image here (4 min at a load of 35)
    image = await fleetImage('FLEET_PG_IMAGE', 'pg-image.sh');
    [w, s3] = await Promise.all([startWorld({ SCHEDULER_BACKUP_SEC: '1' }), startS3Server(['backups'])]);
    container = `pg-${w.tag}-s1`; // cleanup() removes containers named -<tag>-
    await serverExec('s1', ['docker', 'run', '-d', '--name', container, '--env', 'POSTGRES_PASSWORD=pg-secret-pw', '--env', 'POSTGRES_DB=shop', image]);
    await healthy(container);
    await psql(container, "create table items (id int primary key, name text); insert into items values (1, 'anchor'), (2, 'rope'), (3, 'sail')");
    const created = await w.admin.post(`/api/environments/${w.envId}/databases`, {
      name: 'shop', type: 'postgres', serverId: w.servers.s1, containerName: container, databaseName: 'shop', username: 'postgres', password: 'pg-secret-pw',
    });
    expect(created.status, created.text).to.equal(201);
    dbId = created.body.id;
    await w.admin.put('/api/settings/storage-space', {
      endpoint: s3.endpoint, region: s3.region, bucket: 'backups', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true,
    });
    await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: true, prefix: 'e2e' });
  });

  after(async () => {
    await serverExec('s1', ['sh', '-c', `docker ps -aq --filter label=stevedore.database=${dbId} | xargs -r docker rm -f`]).catch(() => undefined);
    await cleanup(w);
    await s3?.stop();
  });

  it('the connection test runs the type\'s check inside the container', async () => {
    const res = await w.admin.post(`/api/databases/${dbId}/test`);
    expect(res.body, res.text).to.include({ ok: true });
  });

  it('backs up to local storage: succeeded with the size and SHA-256 of the stored file, a pg_dump custom-format archive compressed by pg_dump', async () => {
    const b = await backupIn('local');
    expect(b, JSON.stringify(b)).to.include({ status: 'succeeded', storage: 'local', error: null });
    const stored = readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey));
    expect(stored.length).to.equal(b.sizeBytes);
    expect(sha256(stored)).to.equal(b.sha256);
    // stored as pg_dump wrote it (no gzip around it), its table data compressed by pg_dump itself
    expect(b.objectKey.endsWith('.dump')).to.equal(true);
    expect(stored.subarray(0, 5).toString()).to.equal('PGDMP');
    const { stdout: listed } = await run('pg_restore', ['-l', path.join(w.svc.stateDir, 'backups', b.objectKey)]);
    expect(listed).to.match(/Compression: (1|gzip)\b/);
    expect(w.svc.logs.join('')).to.not.include('pg-secret-pw');
  });

  it('backs up to S3-compatible storage: the object read with the S3 SDK has the recorded checksum', async () => {
    const b = await backupIn('s3');
    expect(b, JSON.stringify(b)).to.include({ status: 'succeeded', storage: 's3', bucket: 'backups' });
    expect(b.objectKey.startsWith('e2e/')).to.equal(true);
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    const obj = await client.send(new GetObjectCommand({ Bucket: 'backups', Key: b.objectKey }));
    const bytes = Buffer.from(await obj.Body!.transformToByteArray());
    client.destroy();
    expect(sha256(bytes)).to.equal(b.sha256);
    expect(bytes.subarray(0, 5).toString()).to.equal('PGDMP');
  });

  it('downloads the backup as a stream once the environment allows it', async () => {
    const backups = { s3: await backupIn('s3') };
    expect((await w.admin.get(`/api/backups/${backups.s3.id}/download`)).status).to.equal(403);
    await w.admin.patch(`/api/environments/${w.envId}/settings/data`, { allowBackupDownload: true });
    const res = await fetch(`${w.svc.url}/api/backups/${backups.s3.id}/download`, { headers: { authorization: `Bearer ${w.admin.token}` } });
    expect(res.status).to.equal(200);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).to.equal(backups.s3.sha256);
  });

  it('restores into a scratch container on the same server, which holds the rows', async () => {
    const backups = { s3: await backupIn('s3') };
    const res = await w.admin.post(`/api/backups/${backups.s3.id}/restore`, { target: 'scratch' });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded', checkOutput: '1' });
    expect(await psql(r.scratchContainer, 'select string_agg(name, \',\' order by id) from items')).to.equal('anchor,rope,sail');
    await serverExec('s1', ['docker', 'rm', '-f', r.scratchContainer]);
  });

  it('restores into the database itself after a safety backup: the changed data is back to the backup\'s', async () => {
    const backups = { local: await backupIn('local') };
    await psql(container, "delete from items where id > 1; update items set name = 'changed'");
    const refused = await w.admin.post(`/api/backups/${backups.local.id}/restore`, { target: 'database', confirm: 'not-shop' });
    expect(refused.status).to.equal(400);
    const res = await w.admin.post(`/api/backups/${backups.local.id}/restore`, { target: 'database', confirm: 'shop' });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded' });
    expect(await psql(container, 'select string_agg(name, \',\' order by id) from items')).to.equal('anchor,rope,sail');
    const safety = (await w.admin.get(`/api/backups/${r.safetyBackupId}`)).body;
    expect(safety).to.include({ status: 'succeeded', trigger: 'safety' });
  });

  it('a dump that fails is recorded failed with its reason, stores nothing, degrades the database and alerts', async () => {
    const broken = await w.admin.post(`/api/environments/${w.envId}/databases`, {
      name: 'missing', type: 'postgres', serverId: w.servers.s1, containerName: container, databaseName: 'no_such_db', username: 'postgres',
    });
    const b = await backup(broken.body.id, 'local');
    expect(b.status).to.equal('failed');
    expect(b.error).to.match(/exited 1: .*no_such_db/s);
    expect(b.sha256).to.equal(null);
    let exists = true;
    try { readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey)); } catch { exists = false; }
    expect(exists).to.equal(false);
    const degraded = (await w.admin.get(`/api/databases/${broken.body.id}`)).body.status.conditions.find((c: any) => c.type === 'Degraded');
    expect(degraded).to.include({ status: true, reason: 'BackupFailed' });
    const events = await w.s.events.since(0, w.envId, 10_000);
    expect(events.some((e) => e.type === 'backup.failed' && e.data.backupId === b.id)).to.equal(true);
  });

  it('a dump killed halfway is failed, never succeeded, and leaves no object', async () => {
    // a session holding an exclusive lock makes pg_dump wait mid-way, so it is surely running when killed
    await serverExec('s1', ['docker', 'exec', '-d', container, 'psql', '-U', 'postgres', '-d', 'shop', '-c',
      'begin; lock table items in access exclusive mode; select pg_sleep(300); commit']);
    await until('the lock held', async () => (await psql(container, "select count(*) from pg_locks where mode = 'AccessExclusiveLock' and relation = 'items'::regclass")) === '1' ? true : undefined, WAIT);
    let b: any;
    try {
      const res = await w.admin.post(`/api/databases/${dbId}/backups`, { storage: 'local' });
      expect(res.status, res.text).to.equal(202);
      // the image's busybox has ps but no pgrep/pkill
      await until('pg_dump running', async () =>
        serverExec('s1', ['docker', 'exec', container, 'sh', '-c', 'ps | grep -q "[p]g_dump"']).then(() => true, () => undefined), WAIT);
      await serverExec('s1', ['docker', 'exec', container, 'sh', '-c', 'kill -9 $(ps | awk \'/[p]g_dump/ {print $1}\')']);
      b = await finished(`/api/backups/${res.body.id}`);
    } finally {
      await psql(container, "select pg_terminate_backend(pid) from pg_stat_activity where query like '%pg_sleep(300)%' and pid <> pg_backend_pid()");
    }
    expect(b.status).to.equal('failed');
    expect(b.error).to.match(/the dump (exited|was killed)/);
    let exists = true;
    try { readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey)); } catch { exists = false; }
    expect(exists).to.equal(false);
    const events = await w.s.events.since(0, w.envId, 10_000);
    expect(events.some((e) => e.type === 'backup.failed' && e.data.backupId === b.id)).to.equal(true);
  });

  it('rotation deletes exactly what the preview named, in both stores, and keeps the pinned backup', async () => {
    const backups = { local: await backupIn('local'), s3: await backupIn('s3') };
    expect((await backup(dbId, 'local')).status).to.equal('succeeded'); // a newer one, the one keepLast keeps
    expect((await w.admin.post(`/api/backups/${backups.s3.id}/pin`)).body.pinned).to.equal(true);
    await w.admin.put(`/api/databases/${dbId}/backup-retention`, { keepLast: 1 });
    const all = (await w.admin.get(`/api/databases/${dbId}/backups`)).body.items;
    const preview = (await w.admin.get(`/api/databases/${dbId}/backups/rotation-preview`)).body.items.map((b: any) => b.id).sort();
    // the newest succeeded and the newest failed stay (keepLast 1 each), the pinned one stays: the rest goes
    const newest = (status: string) => all.find((b: any) => b.status === status && !b.pinned)?.id;
    const kept = [newest('succeeded'), newest('failed')];
    const expected = all.filter((b: any) => !kept.includes(b.id) && !b.pinned).map((b: any) => b.id).sort();
    expect(preview).to.deep.equal(expected).and.to.include(backups.local.id);
    const rotated = (await w.admin.post(`/api/databases/${dbId}/backups/rotate`)).body.deleted.map((b: any) => b.id).sort();
    expect(rotated).to.deep.equal(preview);
    const left = (await w.admin.get(`/api/databases/${dbId}/backups`)).body.items.map((b: any) => b.id);
    expect(left).to.include(backups.s3.id);
    expect(left).to.not.include(backups.local.id);
    let exists = true;
    try { readFileSync(path.join(w.svc.stateDir, 'backups', backups.local.objectKey)); } catch { exists = false; }
    expect(exists).to.equal(false);
  });

  it('the scheduler runs a due backup and a due restore drill once; the drill records success and leaves no container', async () => {
    await w.admin.put(`/api/databases/${dbId}/backup-schedule`, { cron: '0 3 * * *', enabled: true });
    await w.admin.put(`/api/databases/${dbId}/restore-drill`, { cron: '0 4 * * *', enabled: true, checkCommand: 'select count(*) from items' });
    await w.s.databaseOps.ctx.databases.update(dbId, { nextBackupAt: new Date(Date.now() - 1000) });
    const scheduled = await until('a scheduled backup', async () => {
      const items = (await w.admin.get(`/api/databases/${dbId}/backups`)).body.items;
      const b = items.find((x: any) => x.trigger === 'schedule' && x.status !== 'running');
      return b;
    }, WAIT);
    expect(scheduled.status).to.equal('succeeded');
    await w.s.databaseOps.ctx.databases.update(dbId, { nextDrillAt: new Date(Date.now() - 1000) });
    const drill = await until('a drill', async () => {
      const items = (await w.admin.get(`/api/databases/${dbId}/restore-drills`)).body.items;
      return items.find((x: any) => x.status !== 'running');
    }, WAIT);
    expect(drill, JSON.stringify(drill)).to.include({ status: 'succeeded', checkOutput: '3', backupId: scheduled.id });
    expect(drill.durationMs).to.be.greaterThan(0);
    const left = await serverExec('s1', ['docker', 'ps', '-aq', '--filter', `label=stevedore.database=${dbId}`, '--filter', 'label=stevedore.scratch=drill']);
    expect(left.trim()).to.equal('');
    // written once the drill's record has ended
    const cond = await until('the DrillSucceeded condition', async () =>
      (await w.admin.get(`/api/databases/${dbId}`)).body.status.conditions.find((c: any) => c.type === 'DrillSucceeded'), WAIT);
    expect(cond).to.include({ status: true, reason: 'DrillSucceeded' });
    expect((await w.admin.get(`/api/databases/${dbId}/restore-drills`)).body.total).to.equal(1);
    expect((await w.admin.get(`/api/databases/${dbId}/backups`)).body.items.filter((x: any) => x.trigger === 'schedule')).to.have.length(1);
  });

  it('a drill of a corrupted backup fails loudly: failed record, DrillFailed and Degraded conditions, an alert, no container left', async () => {
    const latest = await backup(dbId, 's3'); // the newest backup, so the one a drill restores
    expect(latest.status).to.equal('succeeded');
    // the object is damaged in the store behind Stevedore's back (bit rot, a bad copy)
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    await client.send(new PutObjectCommand({ Bucket: 'backups', Key: latest.objectKey, Body: Buffer.from('not a gzip stream at all') }));
    client.destroy();
    const res = await w.admin.post(`/api/databases/${dbId}/restore-drill/run`);
    expect(res.status, res.text).to.equal(202);
    const drill = await finished(`/api/restores/${res.body.id}`);
    expect(drill.status).to.equal('failed');
    expect(drill.error).to.be.a('string').and.not.equal('');
    // the drill's conditions are written once its record has ended: wait for them, not for the record
    const conditions = await until('the drill\'s conditions', async () => {
      const all = (await w.admin.get(`/api/databases/${dbId}`)).body.status.conditions;
      return all.find((c: any) => c.type === 'DrillSucceeded' && c.reason === 'DrillFailed') ? all : undefined;
    }, WAIT);
    expect(conditions.find((c: any) => c.type === 'DrillSucceeded')).to.include({ status: false, reason: 'DrillFailed' });
    expect(conditions.find((c: any) => c.type === 'Degraded')).to.include({ status: true, reason: 'DrillFailed' });
    // published right after the conditions
    await until('the backup.drill_failed event', async () =>
      (await w.s.events.since(0, w.envId, 10_000)).some((e) => e.type === 'backup.drill_failed' && e.data.restoreId === drill.id), WAIT);
    const left = await serverExec('s1', ['docker', 'ps', '-aq', '--filter', `label=stevedore.database=${dbId}`, '--filter', 'label=stevedore.scratch=drill']);
    expect(left.trim()).to.equal('');
  });
});
