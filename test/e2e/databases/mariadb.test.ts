// MariaDB backups proven restorable, on the fleet: a real MariaDB container on s1 (image built from
// this machine's Debian packages by test/fleet/mariadb-image.sh), a mariadb-dump streamed over SSH
// to local storage, the data changed and restored, a scratch restore (the type's own scratch
// recipe, which drills use too) removed through the API, and monitoring (reachability and size)
// that reports only what it observed. Everything is checked on the server (docker exec) or on disk.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { serverExec } from '../../fleet/fleet.js';
import { cleanup, startWorld, type World } from '../deploy/deploy-world.js';
import { until } from '../../support/until.js';
import { finished as finishedRun, fleetImage, healthy, WAIT } from './database-world.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const PASSWORD = 'maria-secret-pw';

describe('MariaDB backups on the fleet', function () {
  this.timeout(180_000);
  let w: World;
  let container: string;
  let dbId: string;

  const sql = async (c: string, query: string, password = PASSWORD) =>
    (await serverExec('s1', ['docker', 'exec', '--env', `MYSQL_PWD=${password}`, c, 'mariadb', '-N', '-u', 'root', '-e', query, 'shop'])).trim();
  const names = (c: string, password?: string) => sql(c, "select group_concat(name order by id separator ',') from items", password);

  const finished = (apiPath: string) => finishedRun(w, apiPath);
  let made: Promise<any> | undefined;
  const backupOnce = () => (made ??= (async () => {
    const res = await w.admin.post(`/api/databases/${dbId}/backups`, { storage: 'local' });
    expect(res.status, res.text).to.equal(202);
    return finished(`/api/backups/${res.body.id}`);
  })());

  before(async function () {
    this.timeout(300_000); // a fresh machine installs MariaDB and builds its image here
    const image = await fleetImage('FLEET_MARIADB_IMAGE', 'mariadb-image.sh');
    w = await startWorld({ SCHEDULER_BACKUP_SEC: '1' });
    container = `mariadb-${w.tag}-s1`; // cleanup() removes containers named -<tag>-
    await serverExec('s1', ['docker', 'run', '-d', '--name', container, '--env', `MARIADB_ROOT_PASSWORD=${PASSWORD}`, '--env', 'MARIADB_DATABASE=shop', image]);
    await healthy(container);
    await sql(container, "create table items (id int primary key, name text); insert into items values (1, 'anchor'), (2, 'rope'), (3, 'sail')");
    const created = await w.admin.post(`/api/environments/${w.envId}/databases`, {
      name: 'shop', type: 'mariadb', serverId: w.servers.s1, containerName: container, databaseName: 'shop', username: 'root', password: PASSWORD,
    });
    expect(created.status, created.text).to.equal(201);
    dbId = created.body.id;
  });

  after(async () => {
    if (dbId) await serverExec('s1', ['sh', '-c', `docker ps -aq --filter label=stevedore.database=${dbId} | xargs -r docker rm -f`]).catch(() => undefined);
    await cleanup(w);
  });

  it('backs up with mariadb-dump, changes the data, restores after a safety backup: the original rows are back', async () => {
    const b = await backupOnce();
    expect(b, JSON.stringify(b)).to.include({ status: 'succeeded', storage: 'local', error: null });
    const stored = readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey));
    expect(stored.length).to.equal(b.sizeBytes);
    expect(sha256(stored)).to.equal(b.sha256);
    // SQL text does not compress itself: the controller gzips it on the way to the store
    expect(b.objectKey.endsWith('.dump.gz')).to.equal(true);
    expect(gunzipSync(stored).toString()).to.include('CREATE TABLE `items`').and.include("'anchor'");
    expect(w.svc.logs.join('')).to.not.include(PASSWORD);

    await sql(container, "delete from items where id > 1; update items set name = 'changed'");
    const res = await w.admin.post(`/api/backups/${b.id}/restore`, { target: 'database', confirm: 'shop' });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded' });
    expect(await names(container)).to.equal('anchor,rope,sail');
    expect((await w.admin.get(`/api/backups/${r.safetyBackupId}`)).body).to.include({ status: 'succeeded', trigger: 'safety' });
  });

  it('restores into a kept scratch container, which the API then removes (and only that one)', async () => {
    const b = await backupOnce();
    const res = await w.admin.post(`/api/backups/${b.id}/restore`, { target: 'scratch' });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded', checkOutput: '1' });
    const scratch = r.scratchContainer as string;
    // the scratch server has its own random root password: read it back from its environment
    const env = await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', scratch]);
    const scratchPw = env.match(/^MARIADB_ROOT_PASSWORD=(.*)$/m)![1];
    expect(await names(scratch, scratchPw)).to.equal('anchor,rope,sail');

    const removed = await w.admin.delete(`/api/restores/${r.id}/scratch-container`);
    expect(removed.status, removed.text).to.equal(200);
    expect(removed.body.scratchContainer).to.equal(null);
    expect((await serverExec('s1', ['docker', 'ps', '-aq', '--filter', `name=^${scratch}$`])).trim()).to.equal('');
    expect((await w.admin.delete(`/api/restores/${r.id}/scratch-container`)).status).to.equal(409);
    // the database's own container is not a scratch container: a drill record naming it is refused
    await w.s.databaseOps.ctx.restores.update(r.id, { scratchContainer: container });
    expect((await w.admin.delete(`/api/restores/${r.id}/scratch-container`)).status).to.equal(409);
    expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.Running}}', container])).trim()).to.equal('true');
  });

  it('monitoring records reachability and size as observed, and an unreachable database with no size', async () => {
    const monitoring = async (after: string) => until('a monitoring probe', async () => {
      const m = (await w.admin.get(`/api/databases/${dbId}`)).body.status.monitoring;
      return m && m.checkedAt > after ? m : undefined;
    }, WAIT);
    const start = new Date().toISOString();
    expect((await w.admin.patch(`/api/databases/${dbId}`, { monitoringEnabled: true, collectionIntervalSec: 60 })).status).to.equal(200);
    const up = await monitoring(start);
    const size = Number(await sql(container, 'select sum(data_length + index_length) from information_schema.tables where table_schema = database()'));
    expect(up, JSON.stringify(up)).to.include({ reachable: true, sizeBytes: size, sizeMessage: null });
    expect(size).to.be.greaterThan(0);

    await serverExec('s1', ['docker', 'stop', '--time', '5', container]);
    try {
      const stopped = new Date().toISOString();
      await w.s.databaseOps.ctx.databases.update(dbId, { nextMonitorAt: new Date(Date.now() - 1000) });
      const down = await monitoring(stopped);
      expect(down, JSON.stringify(down)).to.include({ reachable: false, sizeBytes: null });
      const db = (await w.admin.get(`/api/databases/${dbId}`)).body;
      expect(db.status.conditions.find((c: any) => c.type === 'Reachable')).to.include({ status: false, reason: 'Unreachable' });
      // switched off, the last probe is no longer shown as if it were current
      await w.admin.patch(`/api/databases/${dbId}`, { monitoringEnabled: false });
      expect((await w.admin.get(`/api/databases/${dbId}`)).body.status).to.not.have.property('monitoring');
    } finally {
      await serverExec('s1', ['docker', 'start', container]);
    }
  });
});
