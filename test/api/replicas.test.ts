// The parts replicas coordinate with, on the real PostgreSQL: the leader lock (one leader, taken
// over when it goes), the takeover of expired plan leases (SKIP LOCKED) and the cache
// invalidation NOTIFY fired by the database's triggers. The
// whole of it with two real processes and the fleet: test/e2e/deploy/replicas.test.ts.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { createLogger } from '../../controller/logger.js';
import { Leadership } from '../../controller/queue/leadership.js';
import { CacheInvalidation, type CacheTopic } from '../../controller/events/cache-invalidation.js';
import { ApiTokensRepository } from '../../controller/store/repositories/api-tokens.js';
import { SystemSettingsRepository } from '../../controller/store/repositories/system-settings.js';
import { DeploymentPlansRepository } from '../../controller/store/repositories/deployment-plans.js';
import { createTestDatabase } from '../support/test-database.js';
import { until } from '../support/until.js';

const logger = createLogger('silent');

describe('replicas: leader lock, plan leases and cache invalidation', function () {
  this.timeout(30_000);
  let url: string;
  let db: Knex;
  before(async () => {
    url = await createTestDatabase();
    db = createKnex(url, 2);
  });
  after(() => db.destroy());

  it('elects one leader, runs its work there only, and hands it over when the leader stops', async () => {
    const started: string[] = [];
    const stopped: string[] = [];
    const one = new Leadership(url, 100, logger);
    const two = new Leadership(url, 100, logger);
    one.whileLeader('work', async () => { started.push('one'); return async () => { stopped.push('one'); }; });
    two.whileLeader('work', async () => { started.push('two'); return async () => { stopped.push('two'); }; });
    try {
      await one.start();
      await two.start();
      expect([one.isLeader, two.isLeader]).to.deep.equal([true, false]);
      expect(started).to.deep.equal(['one']);
      await one.stop();
      expect(stopped).to.deep.equal(['one']);
      await until('the other replica to lead', () => two.isLeader, { timeoutMs: 5000, everyMs: 20 });
      expect(started).to.deep.equal(['one', 'two']);
    } finally {
      await one.stop();
      await two.stop();
    }
    expect(stopped).to.deep.equal(['one', 'two']);
  });

  it('hands each plan whose lease ran out to one replica only, and never a live one', async () => {
    const [env] = await db('environments').insert({ name: 'leases' }).returning('id');
    const stale = { environmentId: env.id, status: 'running', owner: 'dead', heartbeatAt: db.raw("now() - interval '1 minute'") };
    const plans = await db('deployment_plans').insert([
      { ...stale, name: 'p1' }, { ...stale, name: 'p2' }, { ...stale, name: 'p3' },
      { environmentId: env.id, name: 'live', status: 'running', owner: 'alive', heartbeatAt: db.fn.now() },
    ]).returning(['id', 'name']);
    const repo = new DeploymentPlansRepository(db);
    const [one, two] = await Promise.all([repo.takeOverStale('one', 5000, []), repo.takeOverStale('two', 5000, [])]);
    const taken = [...one, ...two];
    expect(taken.map((p) => p.name).sort()).to.deep.equal(['p1', 'p2', 'p3']);
    expect(taken.every((p) => p.previousOwner === 'dead' && p.takeovers === 1)).to.equal(true);
    const rows = await db('deployment_plans').whereIn('id', plans.map((p: { id: string }) => p.id)).orderBy('name');
    expect(rows.map((r) => [r.name, r.owner])).to.deep.equal([
      ['live', 'alive'], ...one.map((p) => [p.name, 'one']), ...two.map((p) => [p.name, 'two'])].sort((x, y) => x[0].localeCompare(y[0])));
    // their new owner's lease is fresh: nobody takes them again
    expect(await repo.takeOverStale('three', 5000, [])).to.have.length(0);
  });

  it('announces a revoked token and changed settings to every listener, and not a token merely used', async () => {
    const seen: CacheTopic[] = [];
    const listener = new CacheInvalidation(url, logger);
    listener.on('auth', () => seen.push('auth'));
    listener.on('settings', () => seen.push('settings'));
    await listener.start();
    try {
      const [user] = await db('users').insert({ email: 'replica@example.test', passwordHash: 'x', role: 'admin' }).returning('id');
      const tokens = new ApiTokensRepository(db);
      const [token] = await db('api_tokens').insert({ name: 't', tokenHash: 'h'.repeat(64), tokenPrefix: 'sdt_x', ownerUserId: user.id }).returning('id');
      seen.length = 0;
      // used: last_used_at only (no announcement), then a settings change: notifications arrive in
      // commit order, so once 'settings' is here a wrong 'auth' would have been too
      await tokens.touch(token.id);
      await new SystemSettingsRepository(db).update(() => ({ values: { webhookMaxRetries: 3 } }));
      await until('the settings announcement', () => seen.includes('settings'), { timeoutMs: 5000, everyMs: 20 });
      expect(seen).to.deep.equal(['settings']);
      await tokens.revoke(token.id);
      await until('the auth announcement', () => seen.includes('auth'), { timeoutMs: 5000, everyMs: 20 });
    } finally {
      await listener.stop();
    }
  });
});
