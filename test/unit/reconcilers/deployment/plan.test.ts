import { expect } from 'chai';
import { MISSING, plan, type ActualContainer, type DesiredDeployment } from '../../../../reconcilers/deployment/plan.js';

const desired: DesiredDeployment = { deploymentId: 'd1', containerName: 'web', image: 'reg/web:v1', imageId: 'sha256:aaa', envHash: 'e1', composeHash: 'c1' };
const actual: ActualContainer = { exists: true, running: true, state: 'running', image: 'reg/web:v1', imageId: 'sha256:aaa', labels: { 'stevedore.env-hash': 'e1' }, composeHash: 'c1' };

describe('deployment drift plan', () => {
  it('finds nothing to do when the container matches', () => {
    expect(plan(desired, actual)).to.deep.equal([]);
  });

  it('wants nothing for a deployment that was never deployed', () => {
    expect(plan({ ...desired, image: null }, MISSING)).to.deep.equal([]);
  });

  it('redeploys a missing container', () => {
    expect(plan(desired, MISSING).map((a) => a.reason)).to.deep.equal(['ContainerMissing']);
  });

  it('reports a stopped container and an image changed by hand', () => {
    expect(plan(desired, { ...actual, running: false, state: 'exited' }).map((a) => a.reason)).to.deep.equal(['ContainerStopped']);
    expect(plan(desired, { ...actual, image: 'reg/web:v2' }).map((a) => a.reason)).to.deep.equal(['ImageChanged']);
    expect(plan(desired, { ...actual, imageId: 'sha256:bbb' }).map((a) => a.reason)).to.deep.equal(['ImageIdChanged']);
  });

  it('reports a changed environment and a compose file edited or removed on disk', () => {
    expect(plan(desired, { ...actual, labels: { 'stevedore.env-hash': 'e2' } }).map((a) => a.reason)).to.deep.equal(['EnvChanged']);
    expect(plan(desired, { ...actual, composeHash: 'zz' })[0].message).to.match(/changed by hand/);
    expect(plan(desired, { ...actual, composeHash: null })[0].message).to.match(/missing/);
  });
});
