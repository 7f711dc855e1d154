// Session advisory locks (a plan step's server lock, a scheduled job's lock) hold their connection
// for the whole step or job. They come from a pool of their own (controller/store/session-locks.ts):
// on the query pool, a dozen held at once took every connection, and the work's own queries, lease
// renewals and the API waited out the acquire timeout (503 "the database is not reachable" with
// the database up). Found by the chaos harness (bench/chaos.ts).
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';

describe('session locks on a pool of their own', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc?.stop());

  it('a dozen locks held at once leave the queries and the API their connections', async () => {
    const { locks, db } = svc.services;
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    let holding = 0;
    // more than the query pool's 10 connections, as 8 slow jobs and 4 servers' steps would hold
    const held = Array.from({ length: 12 }, (_, i) => locks.tryHolding(['session-locks-pool-test', String(i)], async () => {
      holding++;
      await released;
    }));
    try {
      const t0 = Date.now();
      while (holding < 12 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 20));
      expect(holding, 'every lock is held at once').to.equal(12);
      // the work holding them still gets connections for its queries, and so do requests
      const started = Date.now();
      const [{ n }] = (await db.raw('SELECT 12 AS n')).rows;
      expect(n).to.equal(12);
      const health = await svc.http.get('/health');
      expect(health.status, health.text).to.equal(200);
      expect(Date.now() - started, 'answered without waiting for a connection').to.be.below(3000);
    } finally {
      release();
      await Promise.all(held);
    }
    expect((await Promise.all(held)).every((r) => r.held)).to.equal(true);
  });
});
