import { expect } from 'chai';
import { degraded, failureReason, notDegraded, serviceConditions, type ServiceObservation } from '../../reconcilers/service/rollout-conditions.js';
import type { Condition } from '../../controller/model/conditions.js';

describe('rollout conditions', () => {
  const where = { service: 'web', server: 's1' };

  it('names the cause of a failed step with a reason and the server and service by name', () => {
    const [c] = degraded([], 'pull of registry/web:v77 failed: manifest unknown', where);
    expect(c).to.include({ type: 'Degraded', status: 'True', reason: 'PullFailed', message: 'pull failed on s1 (service web): manifest unknown for registry/web:v77' });
    expect(failureReason('container web-1 is unhealthy (healthcheck exit 1)')).to.equal('HealthCheckFailed');
    expect(failureReason('server nowhere is unreachable')).to.equal('DeployFailed');
  });

  it('clears on success and moves lastTransitionTime only when the status changes', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const bad = degraded([], 'boom', where, t0);
    const again = degraded(bad, 'boom again', where, new Date('2026-01-02T00:00:00Z'));
    expect(again[0].lastTransitionTime).to.equal(t0.toISOString());
    const ok = notDegraded(again, where, new Date('2026-01-03T00:00:00Z'));
    expect(ok[0]).to.include({ status: 'False', reason: 'AsDesired', lastTransitionTime: '2026-01-03T00:00:00.000Z' });
  });

  const T = '2026-01-01T00:00:00.000Z';
  const cond = (type: string, status: string, reason: string, message = '') => ({ type, status, reason, message, lastTransitionTime: T }) as Condition;
  const healthy = [cond('Ready', 'True', 'Running'), cond('Drifted', 'False', 'InSync')];
  const base: ServiceObservation = {
    name: 'web', desiredRevision: 2, currentRevision: 2, failedRevision: null, failedReason: null, activePlan: null,
    deployments: [{ containerName: 'web', imageTag: 'v2', revision: 2, conditions: healthy }, { containerName: 'web-b', imageTag: 'v2', revision: 2, conditions: healthy }],
  };
  const of = (o: Partial<ServiceObservation>, list: Condition[] = []) => {
    const out = serviceConditions(list, { ...base, ...o });
    return Object.fromEntries(out.map((c) => [c.type, c]));
  };

  it('makes a service Degraded while any deployment is, with their messages', () => {
    const bad = degraded([], 'pull of r/web:v9 failed: manifest unknown', where);
    const c = of({ deployments: [{ ...base.deployments[0], conditions: bad }, base.deployments[1]] }).Degraded;
    expect(c).to.include({ status: 'True', reason: 'PullFailed', message: bad[0].message });
    expect(of({}).Degraded).to.include({ status: 'False', reason: 'AsDesired' });
  });

  it('is Ready only when every deployment was observed Ready, in sync, at the desired revision', () => {
    expect(of({}).Ready).to.include({ status: 'True', reason: 'Running', message: 'every deployment of web runs at r2' });
    expect(of({ deployments: [] }).Ready).to.include({ status: 'False', reason: 'NotDeployed' });
    expect(of({ deployments: [{ ...base.deployments[0], imageTag: null }] }).Ready).to.include({ status: 'False', reason: 'NotDeployed', message: 'never deployed: web' });
    expect(of({ desiredRevision: 3 }).Ready).to.include({ status: 'False', reason: 'SpecMismatch', message: 'web runs r2, web-b runs r2; desired r3' });
    const drifted = [cond('Ready', 'True', 'Running'), cond('Drifted', 'True', 'ContainerStopped', 'web is stopped')];
    expect(of({ deployments: [{ ...base.deployments[0], conditions: drifted }] }).Ready).to.include({ status: 'False', reason: 'ContainerStopped', message: 'web is stopped' });
    const down = [cond('Ready', 'False', 'Unhealthy', 'web is unhealthy')];
    expect(of({ deployments: [{ ...base.deployments[0], conditions: down }] }).Ready).to.include({ status: 'False', reason: 'Unhealthy' });
    expect(of({ deployments: [{ ...base.deployments[0], conditions: [] }] }).Ready).to.include({ status: 'Unknown', reason: 'NotObserved' });
    // services from before revisions: no desired revision, readiness from observation alone
    expect(of({ desiredRevision: null, currentRevision: null, deployments: [{ ...base.deployments[0], revision: null }] }).Ready)
      .to.include({ status: 'True', message: 'every deployment of web runs' });
  });

  it('says the desired revision failed and which last good revision runs instead', () => {
    const c = of({ desiredRevision: 8, currentRevision: 7, failedRevision: 8, failedReason: 'pull of r/web:v77 failed: manifest unknown' });
    expect(c.Degraded).to.include({ status: 'True', reason: 'RevisionFailed', message: 'running r7 (last good); r8 failed: pull of r/web:v77 failed: manifest unknown' });
    // a deployment that says why in its own words (server and service by name) gives the reason and the detail
    const bad = degraded([], 'pull of r/web:v77 failed: manifest unknown', where);
    const named = of({ desiredRevision: 8, currentRevision: 7, failedRevision: 8, failedReason: 'x', deployments: [{ ...base.deployments[0], conditions: bad }] });
    expect(named.Degraded).to.include({ reason: 'PullFailed', message: `running r7 (last good); r8 failed: ${bad[0].message}` });
    expect(c.Ready).to.include({ status: 'False', reason: 'RevisionFailed' });
    expect(of({ desiredRevision: 1, currentRevision: null, failedRevision: 1, failedReason: 'boom' }).Degraded).to.include({ message: 'r1 failed: boom' });
    // a failure of an older revision than the desired one is history, not status
    expect(of({ desiredRevision: 9, currentRevision: 7, failedRevision: 8, failedReason: 'x', deployments: base.deployments.map((d) => ({ ...d, revision: 9 })) }).Degraded)
      .to.include({ status: 'False' });
  });

  it('is Progressing while a plan is pending or running for it, and moves lastTransitionTime only on a change', () => {
    const running = of({ activePlan: { id: 'p1', name: 'deploy web' } });
    expect(running.Progressing).to.include({ status: 'True', reason: 'PlanRunning', message: 'plan "deploy web" is rolling out web' });
    expect(of({}).Progressing).to.include({ status: 'False', reason: 'Idle' });
    const before = serviceConditions([], base, new Date(T));
    const after = serviceConditions(before, { ...base, activePlan: { id: 'p2', name: 'x' } }, new Date('2026-02-01T00:00:00Z'));
    expect(after.find((c) => c.type === 'Ready')!.lastTransitionTime).to.equal(T);
    expect(after.find((c) => c.type === 'Progressing')!.lastTransitionTime).to.equal('2026-02-01T00:00:00.000Z');
  });
});
