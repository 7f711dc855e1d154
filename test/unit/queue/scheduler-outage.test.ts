import { expect } from 'chai';
import { Scheduler } from '../../../controller/queue/scheduler.js';
import { createKnex } from '../../../controller/store/knex.js';
import { createLogger } from '../../../controller/logger.js';
import { SessionLocks } from '../../../controller/store/session-locks.js';

// A scheduler tick while the database is unreachable: no rejection escapes (the process would
// have died on it), the job does not run, and the outage is logged once, not once per tick.
describe('scheduler without a database', () => {
  it('skips ticks without throwing and logs the outage once', async () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (l) => lines.push(l));
    const db = createKnex('postgres://nobody@127.0.0.1:1/none');
    const scheduler = new Scheduler(new SessionLocks(db), logger);
    let ran = 0;
    try {
      for (let i = 0; i < 3; i++) expect(await scheduler.runOnce('job', async () => { ran++; })).to.equal(false);
    } finally {
      await db.destroy();
    }
    expect(ran).to.equal(0);
    expect(lines.filter((l) => l.includes('scheduled job job failed'))).to.have.length(1);
  });
});
