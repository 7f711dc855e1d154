import { expect } from 'chai';
import { describePull, PullProgress } from '../../../controller/deploy/pull-progress.js';

/** A clock the test moves by hand. */
const clock = () => {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => { t += ms; } };
};

describe('PullProgress: what a Docker pull stream said', () => {
  it('is idle since the start until the stream says something, and names that nothing came', () => {
    const c = clock();
    const p = new PullProgress(c.now);
    c.advance(5_000);
    expect(p.idleMs()).to.equal(5_000);
    expect(p.last()).to.equal('the server reported nothing since the pull began');
  });

  it('every event restarts the idle time; the last one names the layer and the bytes it got', () => {
    const c = clock();
    const p = new PullProgress(c.now);
    c.advance(3_000);
    p.record({ status: 'Pulling fs layer', id: 'a1b2c3' });
    c.advance(2_000);
    p.record({ status: 'Downloading', id: 'a1b2c3', progressDetail: { current: 1_200_000, total: 3_000_000 } });
    c.advance(700);
    expect(p.idleMs()).to.equal(700);
    expect(p.last()).to.equal('last: layer a1b2c3 Downloading at 1.2 MB of 3.0 MB');
  });

  it('sums what was fetched, apart from the layers the server had', () => {
    const c = clock();
    const p = new PullProgress(c.now);
    p.record({ status: 'Pulling from stevedore-test/web', id: 'v1' });
    p.record({ status: 'Already exists', id: 'base' });
    p.record({ status: 'Downloading', id: 'l1', progressDetail: { current: 10, total: 2_000_000 } });
    p.record({ status: 'Downloading', id: 'l2', progressDetail: { current: 10, total: 500_000 } });
    p.record({ status: 'Pull complete', id: 'l1' });
    p.record({ status: 'Pull complete', id: 'l2' });
    c.advance(1_250);
    p.record({ status: 'Status: Downloaded newer image for r/web:v1' });
    const s = p.summary();
    expect(s).to.deep.equal({ layersPulled: 2, layersPresent: 1, bytes: 2_500_000, upToDate: false, ms: 1_250 });
    expect(describePull('r/web:v1', s)).to.equal('pulled r/web:v1: 2 layers, 2.5 MB in 1.3 s (1 already on the server)');
  });

  it('an image already there is up to date and fetched nothing', () => {
    const p = new PullProgress(clock().now);
    p.record({ status: 'Status: Image is up to date for r/web:v1' });
    expect(p.summary().upToDate).to.equal(true);
    expect(describePull('r/web:v1', p.summary())).to.equal('r/web:v1 was already on the server (0.0 s)');
  });

  it('keeps the first error the stream reported', () => {
    const p = new PullProgress(clock().now);
    p.record({ status: 'Downloading', id: 'l1', progressDetail: { current: 1, total: 2 } });
    p.record({ error: 'unexpected EOF', errorDetail: { message: 'read tcp: unexpected EOF' } });
    p.record({ error: 'second' });
    expect(p.error()).to.equal('read tcp: unexpected EOF');
  });
});
