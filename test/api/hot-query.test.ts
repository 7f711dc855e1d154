import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { hotQuery, HOT_POOL_MAX } from '../../controller/store/hot-query.js';
import { createTestDatabase } from '../support/test-database.js';

// hotQuery runs on a pg.Pool of the handle's own (controller/store/hot-query.ts): its connections
// are not knex's, so what knex did for them (error listeners, release on failure, teardown) is
// checked here.
describe('hot reads (hotQuery on its own pool)', () => {
  let db: Knex;
  let admin: Knex;
  before(async () => {
    const url = await createTestDatabase();
    db = createKnex(url, 2);
    admin = createKnex(url, 1);
  });
  after(async () => {
    await db?.destroy();
    await admin?.destroy();
  });

  const SQL = { name: 'hot_query_test', text: 'select $1::int + 1 as next_value, pg_backend_pid() as backend_pid' };
  // every other session of this database is one of db's: only hotQuery used db, and admin asks
  const hotBackends = async (): Promise<number[]> => (await admin.raw(
    'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r: { pid: number }) => r.pid);

  it('answers camelCased rows as a prepared statement, on at most HOT_POOL_MAX connections of its own', async () => {
    const rows = await Promise.all(Array.from({ length: 20 }, (_, i) => hotQuery<{ nextValue: number; backendPid: number }>(db, SQL, [i])));
    expect(rows.map((r) => r[0].nextValue)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    const pids = new Set(rows.map((r) => r[0].backendPid));
    expect(pids.size).to.be.within(1, HOT_POOL_MAX);
    const prepared = await Promise.all([...pids].map(() => hotQuery<{ n: number }>(db,
      { name: 'hot_query_prepared', text: `select count(*)::int as n from pg_prepared_statements where name = 'hot_query_test'` }, [])));
    expect(prepared.every((r) => r[0].n === 1)).to.equal(true);
  });

  it('survives its connections being killed: the failed read rejects, the next one reconnects', async () => {
    await hotQuery(db, SQL, [1]);
    const pids = await hotBackends();
    expect(pids.length).to.be.greaterThan(0);
    // idle connections killed: the pool's error listener takes it, the process does not crash
    for (const pid of pids) await admin.raw('select pg_terminate_backend(?)', [pid]);
    await new Promise((r) => setTimeout(r, 200));
    const [row] = await hotQuery<{ nextValue: number; backendPid: number }>(db, SQL, [41]);
    expect(row.nextValue).to.equal(42);
    expect(pids).to.not.include(row.backendPid);

    // a connection killed while checked out: its query fails (a lost connection), nothing is thrown
    // outside the promise, and the pool does not hand the dead connection out again
    const slow = hotQuery(db, { text: 'select pg_sleep(5) as slept' }, []);
    let victim: number | undefined;
    for (let i = 0; i < 50 && victim === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      victim = (await admin.raw(`select pid from pg_stat_activity where datname = current_database() and query = 'select pg_sleep(5) as slept'`)).rows[0]?.pid;
    }
    expect(victim, 'the slow read is running').to.be.a('number');
    await admin.raw('select pg_terminate_backend(?)', [victim!]);
    const outcome = await slow.then(() => 'answered', (e: Error) => e.message);
    expect(outcome).to.match(/terminat|Connection|ended/i);
    const after = await Promise.all(Array.from({ length: HOT_POOL_MAX * 2 }, () => hotQuery<{ backendPid: number }>(db, SQL, [0])));
    expect(after.map((r) => r[0].backendPid)).to.not.include(victim);
  });
});
