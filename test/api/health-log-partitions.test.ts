import { expect } from 'chai';
import { startWithRoles } from '../support/fixtures.js';
import { insertServer } from '../support/catalog-fixtures.js';
import type { TestService } from '../support/test-service.js';
import type { NewHealthLog } from '../../controller/store/repositories/health-logs.js';
import { maintainHealthLogs } from '../../controller/servers/health-worker.js';
import * as migration from '../../controller/store/migrations/20261226H-partition-health-logs.js';

const DAY = 86_400_000;
const partitionOf = (t: number) => `health_logs_p${new Date(Math.floor(t / DAY) * DAY).toISOString().slice(0, 10).replaceAll('-', '')}`;

describe('health logs storage (daily partitions)', () => {
  let svc: TestService;
  let envId: string;
  before(async () => { ({ svc, envId } = await startWithRoles()); });
  after(() => svc.stop());

  const log = (serverId: string, at: number, target = 'srv'): NewHealthLog => ({
    environmentId: envId, kind: 'server', checkKey: `server:${serverId}`, serverId, deploymentId: null,
    target, status: 'ok', latencyMs: 3, error: null, details: {}, checkedAt: new Date(at),
  });
  const partitioned = async () => (await svc.services.db.raw(
    `SELECT 1 FROM pg_partitioned_table WHERE partrelid = 'health_logs'::regclass`)).rows.length === 1;

  it('the migration converts a plain table in place: rows, ids, indexes and cascades kept', async () => {
    const db = svc.services.db;
    const now = Date.now();
    await db.transaction((trx) => migration.down(trx));
    expect(await partitioned()).to.equal(false);
    const a = await insertServer(svc, envId);
    const b = await insertServer(svc, envId);
    const before = [
      await svc.services.healthLogs.insert(log(a.id, now - 10 * DAY, 'ten days ago')),
      await svc.services.healthLogs.insert(log(a.id, now - 2 * DAY, 'two days ago')),
      await svc.services.healthLogs.insert(log(b.id, now, 'now')),
    ];

    await db.transaction((trx) => migration.up(trx));
    expect(await partitioned()).to.equal(true);
    const parts = await svc.services.healthLogs.partitions.names();
    for (const t of [now - 10 * DAY, now - 2 * DAY, now, now + DAY, now + 2 * DAY]) expect(parts).to.include(partitionOf(t));
    expect(parts).to.not.include(partitionOf(now - 5 * DAY));
    const page = await svc.services.healthLogs.pageOf(envId, {}, { limit: 10, offset: 0 });
    expect(page.items.map((r) => [r.id, r.target])).to.deep.equal(before.reverse().map((r) => [r.id, r.target]));
    // the parent keeps the indexes of 20261216L and 20261220H (the owners' for the cascades)
    const indexes = (await db.raw(`SELECT indexname FROM pg_indexes WHERE tablename = 'health_logs'`)).rows.map((r: { indexname: string }) => r.indexname);
    expect(indexes).to.have.members(['health_logs_pkey', 'health_logs_environment_id_checked_at_index', 'health_logs_check_key_checked_at_index',
      'health_logs_server_id_index', 'health_logs_deployment_id_index', 'health_logs_checked_at_index']);
    // the id sequence goes on where it was
    const next = await svc.services.healthLogs.insert(log(b.id, now));
    expect(Number(next.id)).to.be.greaterThan(Math.max(...before.map((r) => Number(r.id))));
    // deleting a server still takes its logs along, on every day
    await db('servers').where('id', a.id).delete();
    const left = await svc.services.healthLogs.pageOf(envId, {}, { limit: 10, offset: 0 });
    expect(left.items.map((r) => r.serverId)).to.deep.equal([b.id, b.id]);
  });

  it('the retention pass drops whole days past healthLogRetentionDays and keeps the others', async () => {
    const s = svc.services;
    const now = Date.now();
    const srv = await insertServer(svc, envId);
    // old days have no partition yet: the insert creates it, inside a caller's transaction too
    await s.healthLogs.insert(log(srv.id, now - 40 * DAY, 'forty days ago'));
    const inTrx = await s.transaction(async (trx) => {
      const row = await s.healthLogs.insert(log(srv.id, now - 35 * DAY, 'thirty-five days ago'), trx);
      await trx('servers').where('id', srv.id).first();
      return row;
    });
    expect(inTrx.target).to.equal('thirty-five days ago');
    await s.healthLogs.insert(log(srv.id, now - 29 * DAY, 'twenty-nine days ago'));
    await s.healthLogs.insert(log(srv.id, now, 'today'));
    expect(await s.healthLogs.partitions.names()).to.include.members([partitionOf(now - 40 * DAY), partitionOf(now - 35 * DAY)]);

    const { dropped } = await maintainHealthLogs(s, new Date(now));
    expect(dropped).to.include.members([partitionOf(now - 40 * DAY), partitionOf(now - 35 * DAY)]);
    const parts = await s.healthLogs.partitions.names();
    expect(parts).to.not.include(partitionOf(now - 40 * DAY));
    expect(parts).to.not.include(partitionOf(now - 35 * DAY));
    expect(parts).to.include.members([partitionOf(now - 29 * DAY), partitionOf(now), partitionOf(now + 2 * DAY)]);
    const page = await s.healthLogs.pageOf(envId, { serverId: srv.id }, { limit: 10, offset: 0 });
    expect(page.items.map((r) => r.target)).to.deep.equal(['today', 'twenty-nine days ago']);
  });
});
