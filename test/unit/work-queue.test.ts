import { expect } from 'chai';
import { WorkQueue } from '../../controller/queue/work-queue.js';
import { TerminalError } from '../../controller/errors/terminal-error.js';
import { createLogger } from '../../controller/logger.js';

const logger = createLogger('silent');
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('keeps the order of thousands of keys, mixed kinds and keys added while it runs (its FIFO compacts as it goes)', async () => {
    const q = new WorkQueue({ logger, concurrency: 1 });
    const seen: string[] = [];
    q.register('a', async (id) => { seen.push(`a/${id}`); if (id === '2500') for (let i = 0; i < 3000; i++) q.add(`a/late${i}`); });
    q.registerBatch('b', async (ids) => { seen.push(...ids.map((id) => `b/${id}`)); return new Map(); }, 32);
    const wanted: string[] = [];
    for (let i = 0; i < 6000; i++) wanted.push(i % 1000 < 900 ? `a/${i}` : `b/${i}`);
    wanted.forEach((k) => q.add(k));
    await q.drain();
    expect(seen).to.deep.equal([...wanted, ...Array.from({ length: 3000 }, (_, i) => `a/late${i}`)]);
    expect(q.depth()).to.deep.equal({ queued: 0, running: 0, delayed: 0 });
  });

  it('runs a key added many times while queued only once', async () => {
    const q = new WorkQueue({ logger, concurrency: 1 });
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    q.register('a', async (id) => { seen.push(id); if (id === 'first') await gate; });
    q.add('a/first');
    q.add('a/x'); q.add('a/x'); q.add('a/x');
    release();
    await q.drain();
    expect(seen).to.deep.equal(['first', 'x']);
  });

  it('runs a key again when it was added while running, never twice at once', async () => {
    const q = new WorkQueue({ logger, concurrency: 4 });
    let active = 0, maxActive = 0, runs = 0;
    q.register('k', async () => {
      active++; runs++; maxActive = Math.max(maxActive, active);
      if (runs === 1) q.add('k/1');
      await tick(5);
      active--;
    });
    q.add('k/1');
    await tick(50);
    await q.drain();
    expect(runs).to.equal(2);
    expect(maxActive).to.equal(1);
  });

  it('retries a failing key with backoff and stops retrying on TerminalError', async () => {
    const q = new WorkQueue({ logger, baseDelayMs: 5 });
    let calls = 0, terminalCalls = 0;
    q.register('f', async () => { calls++; if (calls < 3) throw new Error('flaky'); });
    q.register('t', async () => { terminalCalls++; throw new TerminalError('bad config'); });
    q.add('f/1'); q.add('t/1');
    for (let i = 0; i < 100 && calls < 3; i++) await tick(10);
    await q.drain();
    expect(calls).to.equal(3);
    expect(terminalCalls).to.equal(1);
    await q.stop();
  });

  it('hands queued keys of a batch kind over together, each with its own outcome', async () => {
    const q = new WorkQueue({ logger, concurrency: 1, baseDelayMs: 5 });
    const batches: string[][] = [];
    let failBad = true;
    q.registerBatch('b', async (ids) => {
      batches.push(ids);
      if (ids.includes('again') && batches.length === 1) q.add('b/again');
      return new Map(ids.map((id) => [id, id === 'bad' && failBad
        ? { status: 'rejected' as const, reason: new Error('flaky') } : { status: 'fulfilled' as const, value: undefined }]));
    }, 3);
    q.register('a', async () => undefined);
    for (const k of ['b/1', 'b/again', 'b/bad', 'b/4', 'a/x', 'b/5']) q.add(k);
    await q.drain();
    // at most 3 at once, never across a key of another kind
    expect(batches.slice(0, 3)).to.deep.equal([['1', 'again', 'bad'], ['4'], ['5', 'again']]);
    // only the rejected key is retried (after its backoff)
    failBad = false;
    for (let i = 0; i < 100 && !batches.some((b, n) => n >= 3 && b.includes('bad')); i++) await tick(10);
    await q.drain();
    expect(batches.slice(3)).to.deep.equal([['bad']]);
    await q.stop();
  });

  it('tells whether a key waits in the queue: not before it is added, not once it has started', async () => {
    const q = new WorkQueue({ logger, concurrency: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    q.register('a', async (id) => { if (id === 'first') await gate; });
    expect(q.isQueued('a/first')).to.equal(false);
    q.add('a/first');
    q.add('a/second');
    await tick(1);
    expect(q.isQueued('a/first')).to.equal(false); // running
    expect(q.isQueued('a/second')).to.equal(true);
    release();
    await q.drain();
    expect(q.isQueued('a/second')).to.equal(false);
  });
});

