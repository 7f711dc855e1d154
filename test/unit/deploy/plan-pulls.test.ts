import { expect } from 'chai';
import { PlanPulls } from '../../../reconcilers/deployment/plans/plan-pulls.js';

describe('PlanPulls', () => {
  it('runs one pull per server and image; a step awaiting it gets that pull, and its error', async () => {
    const pulls = new PlanPulls();
    let started = 0;
    const pull = (fail: boolean) => async () => { started++; if (fail) throw new Error('manifest unknown'); };
    const first = pulls.once('s1', 'web:v2', pull(false));
    expect(pulls.once('s1', 'web:v2', pull(false))).to.equal(first);
    await pulls.once('s2', 'web:v2', pull(false));
    await pulls.once('s1', 'web:v3', pull(false));
    expect(started).to.equal(3);
    const failed = pulls.once('s3', 'web:v2', pull(true));
    await new Promise((r) => setImmediate(r)); // nobody awaited it yet: no unhandled rejection
    let error: Error | undefined;
    await pulls.once('s3', 'web:v2', pull(false)).catch((e: Error) => { error = e; });
    expect(error?.message).to.equal('manifest unknown');
    expect(started).to.equal(4);
    await failed.catch(() => undefined);
  });
});
