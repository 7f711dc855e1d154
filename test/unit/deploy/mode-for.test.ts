import { expect } from 'chai';
import { decideCompose } from '../../../controller/deploy/compose/compose-path-rules.js';
import { modeFor } from '../../../reconcilers/deployment/effects/mode-for.js';
import { missing } from '../../../reconcilers/deployment/observe.js';
import { desired, observedOf } from '../reconcilers/deployment/desired-fixture.js';

// The one choice of how a deploy replaces a container, from the compose path rules' real
// decisions and containers rendered the way a deploy renders them.
describe('modeFor (which deploy mode replaces the container)', () => {
  const decide = (composePath: string | null, autoManageCompose = false, sharing = 1) =>
    decideCompose({ composePath, autoManageCompose, containerName: 'web-1', deploymentsSharingPath: sharing });
  const startFirst = () => desired({}, { ports: ['80'], updateOrder: 'start-first' });
  const stopFirst = () => desired({}, { ports: ['80'] });
  const running = (d: ReturnType<typeof desired>) => observedOf(d);
  const stopped = (d: ReturnType<typeof desired>) => ({ ...observedOf(d), running: false, state: 'exited' });

  it('recreates a direct stop-first container, running or not', () => {
    expect(modeFor(decide(null), stopFirst(), running(stopFirst())).name).to.equal('recreate');
    expect(modeFor(decide(null), stopFirst(), missing()).name).to.equal('recreate');
  });

  it('switches start-first only over a running container; with none running it recreates', () => {
    const d = startFirst();
    expect(modeFor(decide(null), d, running(d)).name).to.equal('start-first');
    expect(modeFor(decide(null), d, stopped(d)).name).to.equal('recreate');
    expect(modeFor(decide(null), d, missing()).name).to.equal('recreate');
  });

  it('switches through the proxy a service with an ingress over a running container, stop-first or start-first; not with a fixed host port or in compose', () => {
    const ingress = { hosts: ['app.example.com'], port: 80 };
    for (const d of [stopFirst(), startFirst()]) {
      expect(modeFor(decide(null), d, running(d), { ingress, ports: ['80'] }).name).to.equal('proxy-switch');
      expect(modeFor(decide(null), d, missing(), { ingress, ports: ['80'] }).name).to.equal('recreate');
    }
    expect(modeFor(decide(null), stopFirst(), running(stopFirst()), { ingress, ports: ['8080:80'] }).name).to.equal('recreate');
    expect(modeFor(decide(null), stopFirst(), running(stopFirst()), { ingress: null, ports: [] }).name).to.equal('recreate');
    const generated = desired({ mode: 'compose-generated' }, { ports: ['80'] });
    expect(modeFor(decide(null, true), generated, running(generated), { ingress, ports: [] }).name).to.equal('compose-generated');
  });

  it('brings generated and external compose files up with compose, whatever the update order', () => {
    const generated = desired({ mode: 'compose-generated' }, { ports: ['80'], updateOrder: 'start-first' });
    expect(modeFor(decide(null, true), generated, running(generated)).name).to.equal('compose-generated');
    expect(modeFor(decide('/srv/app/compose.yaml'), generated, running(generated)).name).to.equal('compose-external');
    expect(modeFor(decide('/srv/app/compose.yaml', false, 2), generated, missing()).name).to.equal('compose-external');
  });

  it('lets only the external mode report its own first change (after validating the file)', () => {
    expect(modeFor(decide('/srv/app/compose.yaml'), stopFirst(), missing()).validatesFirst).to.equal(true);
    for (const d of [decide(null), decide(null, true)]) expect(modeFor(d, startFirst(), running(startFirst())).validatesFirst).to.not.equal(true);
  });
});
