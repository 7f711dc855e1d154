// The parts replicas coordinate with, on the real PostgreSQL: the leader lock (one leader, taken
// over when it goes) and the cache invalidation NOTIFY fired by the database's triggers. The
// whole of it with two real processes and the fleet: test/e2e/deploy/replicas.test.ts.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { createLogger } from '../../controller/logger.js';
import { Leadership } from '../../controller/queue/leadership.js';
import { CacheInvalidation, type CacheTopic } from '../../controller/events/cache-invalidation.js';
import { ApiTokensRepository } from '../../controller/store/repositories/api-tokens.js';
import { SystemSettingsRepository } from '../../controller/store/repositories/system-settings.js';
import { createTestDatabase } from '../support/test-database.js';

const logger = createLogger('silent');

async function until(what: string, ms: number, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('replicas: leader lock and cache invalidation', function () {
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
      await until('the other replica to lead', 5000, () => two.isLeader);
      expect(started).to.deep.equal(['one', 'two']);
    } finally {
      await one.stop();
      await two.stop();
    }
    expect(stopped).to.deep.equal(['one', 'two']);
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
      await until('the settings announcement', 5000, () => seen.includes('settings'));
      expect(seen).to.deep.equal(['settings']);
      await tokens.revoke(token.id);
      await until('the auth announcement', 5000, () => seen.includes('auth'));
    } finally {
      await listener.stop();
    }
  });
});
