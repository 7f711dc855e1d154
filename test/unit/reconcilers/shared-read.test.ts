import { expect } from 'chai';
import { sharedRead } from '../../../reconcilers/shared-read.js';

describe('sharedRead', () => {
  it('gives callers that arrive while a read is in flight that read, and reads again once it answered', async () => {
    let reads = 0;
    let answer!: (v: number) => void;
    const read = () => { reads++; return new Promise<number>((r) => { answer = r; }); };
    const a = sharedRead('k-flight', read);
    const b = sharedRead('k-flight', read);
    expect(reads).to.equal(1);
    answer(1);
    expect(await a).to.equal(1);
    expect(await b).to.equal(1);
    const c = sharedRead('k-flight', read);
    expect(reads, 'nothing is kept once it answered').to.equal(2);
    answer(2);
    expect(await c).to.equal(2);
  });

  it('shares a failure only with the callers that waited for it', async () => {
    let reads = 0;
    const failing = () => { reads++; return Promise.reject(new Error('down')); };
    const [a, b] = await Promise.allSettled([sharedRead('k-fail', failing), sharedRead('k-fail', failing)]);
    expect([a.status, b.status, reads]).to.deep.equal(['rejected', 'rejected', 1]);
    expect(await sharedRead('k-fail', async () => 'up')).to.equal('up');
  });
});
