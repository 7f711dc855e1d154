import { expect } from 'chai';
import { WorkQueue } from '../../../controller/queue/work-queue.js';
import { ResyncRound } from '../../../controller/queue/resync-round.js';
import { createLogger } from '../../../controller/logger.js';

// The guard of the periodic resyncs (deployments, proxies): a tick while the last round's keys
// still wait adds nothing, so a round longer than its period is not joined by the next.
describe('ResyncRound', () => {
  it('is under way while the last key of the round waits in the queue, and not once it ran', async () => {
    const q = new WorkQueue({ logger: createLogger('silent'), concurrency: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    q.register('k', async (id) => { seen.push(id); if (id === '0') await gate; });
    const round = new ResyncRound(q);
    expect(round.underWay).to.equal(false);
    for (let i = 0; i < 5; i++) round.add(`k/${i}`);
    await new Promise((r) => setImmediate(r));
    expect(seen).to.deep.equal(['0']);
    expect(round.underWay).to.equal(true);
    release();
    await q.drain();
    expect(seen).to.deep.equal(['0', '1', '2', '3', '4']);
    expect(round.underWay).to.equal(false);
  });
});
