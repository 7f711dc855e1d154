import { expect } from 'chai';
import { getCondition, type Condition } from '../../../../controller/model/conditions.js';
import { plan } from '../../../../reconcilers/deployment/plan.js';
import { deploymentConditions, type Observation } from '../../../../reconcilers/deployment/status.js';
import type { ObservedContainer } from '../../../../reconcilers/deployment/observe.js';
import { desired, observedOf } from './desired-fixture.js';

const d = desired();
const look = (o: ObservedContainer): Observation => ({ kind: 'observed', desired: d, observed: o, plan: plan(d, o) });
const facts = { generation: 3, failedGeneration: null };
const brief = (list: Condition[]) => Object.fromEntries(list.map((c) => [c.type, `${c.status}/${c.reason}`]));

describe('deployment conditions from observation', () => {
  it('is Ready, not Drifted, and clears Degraded when the container matches', () => {
    const before: Condition[] = [{ type: 'Degraded', status: 'True', reason: 'PullFailed', message: 'x', lastTransitionTime: '2026-01-01T00:00:00.000Z' }];
    const out = deploymentConditions(before, look(observedOf(d)), facts);
    expect(brief(out)).to.deep.equal({ Ready: 'True/Healthy', Drifted: 'False/InSync', Degraded: 'False/AsDesired' });
    expect(getCondition(out, 'Degraded')!.lastTransitionTime).to.not.equal('2026-01-01T00:00:00.000Z');
  });

  it('keeps the Degraded of a failed rollout while that generation is still desired', () => {
    const before: Condition[] = [{ type: 'Degraded', status: 'True', reason: 'PullFailed', message: 'pull failed', lastTransitionTime: 't' }];
    const out = deploymentConditions(before, look(observedOf(d)), { generation: 3, failedGeneration: 3 });
    expect(getCondition(out, 'Degraded')).to.deep.equal(before[0]);
  });

  it('is not Ready and Drifted with the first reason when the container is stopped or differs', () => {
    const stopped = deploymentConditions([], look({ ...observedOf(d), running: false, state: 'exited' }), facts);
    expect(brief(stopped)).to.deep.equal({ Ready: 'False/ContainerStopped', Drifted: 'True/ContainerStopped' });
    const changed = deploymentConditions([], look({ ...observedOf(d), ports: [] }), facts);
    expect(brief(changed)).to.include({ Ready: 'False/SpecMismatch', Drifted: 'True/SpecChanged' });
  });

  it('reports an unhealthy container as not Ready', () => {
    expect(brief(deploymentConditions([], look({ ...observedOf(d), health: 'unhealthy' }), facts)).Ready).to.equal('False/Unhealthy');
  });

  it('is Degraded by a name conflict', () => {
    const o = observedOf(d);
    const out = deploymentConditions([], look({ ...o, owner: { ...o.owner, environmentId: 'env-2', environmentName: 'prod' } }), facts);
    expect(brief(out)).to.deep.equal({ Ready: 'False/NameConflict', Drifted: 'True/NameConflict', Degraded: 'True/NameConflict' });
  });

  it('says Unknown, naming the server, when the server cannot be asked', () => {
    const out = deploymentConditions([], { kind: 'unreachable', message: 'connection refused', serverName: 's2' }, facts);
    expect(brief(out)).to.deep.equal({ Ready: 'Unknown/ServerUnreachable', Drifted: 'Unknown/ServerUnreachable' });
    expect(out[0].message).to.equal('server s2 could not be asked: connection refused');
  });

  it('moves lastTransitionTime only when a status changes', () => {
    const first = deploymentConditions([], look(observedOf(d)), facts, new Date('2026-01-01T00:00:00Z'));
    const again = deploymentConditions(first, look(observedOf(d)), facts, new Date('2026-02-01T00:00:00Z'));
    expect(again.map((c) => c.lastTransitionTime)).to.deep.equal(first.map((c) => c.lastTransitionTime));
  });

  it('reports an adopted container as Adopted (Ready), naming its id, until a rollout recreates it', () => {
    const ID = 'c'.repeat(64);
    const a = desired({ deployment: { id: 'dep-1', containerName: 'web-1', serverId: 'srv-1', adoptedContainerId: ID } });
    const o = { ...observedOf(a), id: ID, specHash: null, owner: { managed: false, environmentId: null, environmentName: null, serviceId: null, deploymentId: null } };
    const out = deploymentConditions([], { kind: 'observed', desired: a, observed: o, plan: plan(a, o) }, facts);
    expect(brief(out)).to.deep.equal({ Ready: 'True/Adopted', Drifted: 'False/InSync', Degraded: 'False/AsDesired' });
    expect(getCondition(out, 'Ready')!.message).to.include('adopted').and.include(ID.slice(0, 12));
  });
});
