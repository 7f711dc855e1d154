import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startTestService } from '../support/test-service.js';
import { EVENTS_CHANNEL, type StreamEvent } from '../../controller/events/event-bus.js';
import { until } from '../support/until.js';


// The LISTEN connection is cut by the database (as in a restart) while events keep being
// committed: the bus reconnects by itself and hands out what it missed, in order, once each.
describe('event bus across a lost LISTEN connection', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.stop());

  it('reconnects and replays the events committed while it was away, each once', async () => {
    const s = svc.services;
    const got: StreamEvent[] = [];
    const unsubscribe = s.events.subscribe((e) => got.push(e));
    const before = await s.events.publish('plan.updated', null, { n: 0 });
    await until('the live event', () => got.some((e) => e.id === before.id), { timeoutMs: 20_000 });

    const killed = await s.db.raw(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
      WHERE datname = current_database() AND query = ? AND pid <> pg_backend_pid()`, [`LISTEN ${EVENTS_CHANNEL}`]);
    expect(killed.rows.length, 'the event listener connection was found (cache invalidation listens on its own)').to.equal(1);
    const missed: StreamEvent[] = [];
    for (let i = 1; i <= 5; i++) missed.push(await s.events.publish('plan.updated', null, { n: i }));

    await until('the missed events', () => missed.every((m) => got.some((e) => e.id === m.id)), { timeoutMs: 20_000 });
    const after = await s.events.publish('plan.updated', null, { n: 6 });
    await until('live events after the reconnect', () => got.some((e) => e.id === after.id), { timeoutMs: 20_000 });
    unsubscribe();
    const ids = got.map((e) => e.id);
    expect(new Set(ids).size, 'no event handed out twice').to.equal(ids.length);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(svc.logs.join('')).to.match(/event listener \(LISTEN\) connection (failed|recovered)/);
  });
});
