import { expect } from 'chai';
import { describeNetem, drawNetem, NETEM_BOUNDS } from '../../../bench/chaos/faults/netem.js';
import { seededRandom as seeded } from '../../../bench/chaos/random.js';

describe('the netem fault draw', () => {
  it('stays within its bounds, in whole numbers, over many draws', () => {
    const random = seeded(7);
    for (let i = 0; i < 5000; i++) {
      const d = drawNetem(random);
      for (const n of [d.delayMs, d.jitterMs, d.lossPct]) expect(Number.isInteger(n), JSON.stringify(d)).to.equal(true);
      expect(d.delayMs).to.be.within(NETEM_BOUNDS.delayMs[0], NETEM_BOUNDS.delayMs[1]);
      expect(d.jitterMs).to.be.within(0, d.delayMs * NETEM_BOUNDS.jitterFraction);
      expect(d.lossPct).to.be.within(NETEM_BOUNDS.lossPct[0], NETEM_BOUNDS.lossPct[1]);
    }
  });

  it('reaches both ends of each range (the extremes of random())', () => {
    expect(drawNetem(() => 0)).to.deep.equal({ delayMs: 50, jitterMs: 0, lossPct: 0 });
    expect(drawNetem(() => 0.999999)).to.deep.equal({ delayMs: 400, jitterMs: 100, lossPct: 15 });
  });

  it('draws the same values from the same seed, and says which', () => {
    const a = drawNetem(seeded(42));
    expect(drawNetem(seeded(42))).to.deep.equal(a);
    expect(describeNetem(a)).to.equal(`delay ${a.delayMs}ms ±${a.jitterMs}ms loss ${a.lossPct}%`);
  });
});
