import { expect } from 'chai';
import { quantile, summarize } from '../../../bench/support/api-probe.js';

describe('the scale bench API probe', () => {
  it('takes quantiles by the nearest rank, whatever the order of the values', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1
    expect(quantile(values, 0.5)).to.equal(50);
    expect(quantile(values, 0.99)).to.equal(99);
    expect(quantile(values, 1)).to.equal(100);
    expect(quantile([7], 0.99)).to.equal(7);
    expect(quantile([], 0.5)).to.be.NaN;
  });

  it('sums up the samples due within a window, failures counted apart from latencies', () => {
    const samples = [
      { dueAt: 999, ms: 500, ok: true }, // before the window
      { dueAt: 1000, ms: 10, ok: true },
      { dueAt: 1500, ms: 30, ok: true },
      { dueAt: 1600, ms: 9000, ok: false }, // an error is no latency
      { dueAt: 2000, ms: 800, ok: true }, // the window ends before it
    ];
    expect(summarize(samples, 1000, 2000)).to.deep.equal({ count: 3, p50Ms: 10, p99Ms: 30, maxMs: 30, errors: 1 });
  });
});
