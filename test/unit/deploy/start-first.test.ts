import { expect } from 'chai';
import { plan } from '../../../reconcilers/deployment/plan.js';
import { missing } from '../../../reconcilers/deployment/observe.js';
import { updateOrderProblem } from '../../../controller/deploy/update-order.js';
import { ensureNetwork, switchCommands } from '../../../reconcilers/deployment/effects/start-first.js';
import { toShellLine } from '../../../controller/hosts/shell-quote.js';
import { desired, observedOf } from '../reconcilers/deployment/desired-fixture.js';

describe('start-first update order (rule, desired container, plan, switch commands)', () => {
  const startFirst = (mode: 'direct' | 'compose-generated' = 'direct') =>
    desired(mode === 'direct' ? {} : { mode, }, { ports: ['80'], updateOrder: 'start-first', drainSec: 1 });
  const reachable = (d: ReturnType<typeof desired>) => ({ ...observedOf(d), networks: { bridge: [], 'stevedore-env-1': ['abc123', 'web', 'web-1'] } });

  it('refuses a fixed host port with start-first, naming updateOrder and the port', () => {
    expect(updateOrderProblem({ updateOrder: 'start-first', ports: ['80', '127.0.0.1:8080:80', '127.0.0.1::81'] }))
      .to.deep.include({ field: 'updateOrder' }).and.to.have.property('message').that.includes('(127.0.0.1:8080:80)');
    expect(updateOrderProblem({ updateOrder: 'start-first', ports: ['80', '127.0.0.1::81/udp'] })).to.equal(null);
    expect(updateOrderProblem({ updateOrder: 'stop-first', ports: ['8080:80'] })).to.equal(null);
    expect(updateOrderProblem({ ports: ['8080:80'] })).to.equal(null);
  });

  it('puts a direct start-first container on the environment network under the service name', () => {
    const d = startFirst();
    expect(d).to.include({ updateOrder: 'start-first', networkAlias: 'web', drainSec: 1 });
    expect(d.networks).to.deep.equal(['stevedore-env-1']);
    // joining the network is part of the spec; a stop-first service keeps the hash it always had
    expect(d.specHash).to.not.equal(desired({}, { ports: ['80'] }).specHash);
    expect(desired({}, { ports: ['80'], updateOrder: 'stop-first' }).specHash).to.equal(desired({}, { ports: ['80'] }).specHash);
  });

  it('falls back to stop-first where compose creates the container', () => {
    const d = startFirst('compose-generated');
    expect(d).to.include({ updateOrder: 'stop-first', networkAlias: null });
    expect(d.networks).to.deep.equal([]);
  });

  it('plans nothing while the container answers to its alias, a recreate when it does not', () => {
    const d = startFirst();
    expect(plan(d, reachable(d)).action).to.equal('none');
    const p = plan(d, { ...reachable(d), networks: { bridge: [] } });
    expect(p.action).to.equal('recreate');
    expect(p.differences).to.deep.equal([{ field: 'network', reason: 'SpecChanged', message: 'container web-1 is not reachable as web on network stevedore-env-1' }]);
  });

  it('recognises the new container an interrupted switch left, with or without the old one', () => {
    const d = startFirst();
    const leftover = { name: 'web-1-stevedore-next', running: true };
    const beside = plan(d, { ...reachable(d), leftover });
    expect(beside.action).to.equal('recreate');
    expect(beside.differences.map((x) => [x.field, x.reason, x.message])).to.deep.equal([
      ['switch', 'SwitchInterrupted', 'container web-1-stevedore-next on server s1 was left by an interrupted start-first deploy'],
    ]);
    const alone = plan(d, { ...missing(), leftover });
    expect(alone.action).to.equal('create');
    expect(alone.differences.map((x) => x.reason)).to.deep.equal(['ContainerMissing', 'SwitchInterrupted']);
  });

  it('switches with argv only: alias to the new one, the old one leaves, stops, goes, the new one is renamed', () => {
    const steps = switchCommands(startFirst(), 'old-id', 'new-id', true);
    expect(Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, Array.isArray(v![0]) ? (v as string[][]).map(toShellLine) : toShellLine(v as string[])]))).to.deep.equal({
      takeOver: 'docker network connect --alias web -- stevedore-env-1 new-id',
      leave: 'docker network disconnect -- stevedore-env-1 old-id',
      retire: ['docker stop --time 10 -- old-id', 'docker rm --force -- old-id'],
      promote: 'docker rename -- new-id web-1',
    });
    // an old container that never joined the network has nothing to leave
    expect(switchCommands(startFirst(), 'old-id', 'new-id', false).leave).to.equal(null);
  });

  it('creates the environment network only when it is missing, and survives a concurrent create', () => {
    expect(toShellLine(ensureNetwork('stevedore-env-1', 'env-1').slice(2))).to.equal(
      `'docker network inspect -- stevedore-env-1 || docker network create --label stevedore.environment-id=env-1 --label stevedore.managed=true -- stevedore-env-1 || docker network inspect -- stevedore-env-1'`);
  });
});
