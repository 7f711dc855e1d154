import { expect } from 'chai';
import { concurrencyLimit } from '../../../controller/queue/concurrency-limit.js';

describe('concurrencyLimit', () => {
  it('runs at most max calls at once, the others in order, and passes results and errors through', async () => {
    const limit = concurrencyLimit(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const call = (n: number) => limit(async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      order.push(n);
      if (n === 3) throw new Error('three');
      return n * 10;
    });
    const results = await Promise.allSettled([1, 2, 3, 4, 5, 6].map(call));
    expect(most).to.equal(2);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).to.deep.equal([10, 20, 'three', 40, 50, 60]);
    expect(order.slice(0, 2).sort()).to.deep.equal([1, 2]);
    expect(await call(7)).to.equal(70);
  });
});
