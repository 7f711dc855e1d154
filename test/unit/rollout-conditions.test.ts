import { expect } from 'chai';
import { degraded, failureReason, notDegraded, serviceDegraded } from '../../reconcilers/service/rollout-conditions.js';

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

  it('makes a service Degraded while any deployment is, with their messages', () => {
    const bad = degraded([], 'pull of r/web:v9 failed: manifest unknown', where);
    const [c] = serviceDegraded([], 'web', [{ conditions: bad }, { conditions: notDegraded([], { service: 'web', server: 's2' }) }]);
    expect(c).to.include({ status: 'True', reason: 'PullFailed', message: bad[0].message });
    expect(serviceDegraded([], 'web', [{ conditions: [] }])[0]).to.include({ status: 'False', reason: 'AsDesired' });
  });
});
