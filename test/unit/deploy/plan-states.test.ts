import { expect } from 'chai';
import { nextPlanStatus, nextStepStatus, outcomeOf, rollbackOutcome, stepsToRollBack } from '../../../controller/model/plan-states.js';

describe('plan state machine', () => {
  it('moves a plan pending -> running -> succeeded and allows a manual rollback afterwards', () => {
    expect(nextPlanStatus('pending', 'running')).to.equal('running');
    expect(nextPlanStatus('running', 'succeeded')).to.equal('succeeded');
    expect(nextPlanStatus('succeeded', 'rolling_back')).to.equal('rolling_back');
  });

  it('refuses to execute a plan that is not pending and to end a rollback as anything but its two outcomes', () => {
    for (const from of ['running', 'succeeded', 'failed', 'cancelled', 'rolled_back'] as const) {
      expect(() => nextPlanStatus(from, 'running'), from).to.throw(/cannot go/);
    }
    expect(() => nextPlanStatus('rolling_back', 'succeeded')).to.throw(/cannot go/);
  });

  it('never lets a finished step run again', () => {
    expect(() => nextStepStatus('succeeded', 'running')).to.throw(/cannot go/);
    expect(nextStepStatus('failed', 'rolled_back')).to.equal('rolled_back');
    expect(() => nextStepStatus('skipped', 'rolled_back')).to.throw(/cannot go/);
  });

  it('ends a plan failed when a step failed, cancelled when cancel stopped it, else succeeded', () => {
    expect(outcomeOf([{ status: 'succeeded' }, { status: 'failed' }, { status: 'skipped' }], false)).to.equal('failed');
    expect(outcomeOf([{ status: 'succeeded' }, { status: 'cancelled' }], true)).to.equal('cancelled');
    expect(outcomeOf([{ status: 'succeeded' }], true)).to.equal('succeeded');
  });

  it('ends a rollback rolled_back only when every step came back', () => {
    expect(rollbackOutcome([true, true])).to.equal('rolled_back');
    expect(rollbackOutcome([true, false])).to.equal('rollback_failed');
  });

  it('rolls back the failed step too, newest first, and leaves skipped steps alone', () => {
    const steps = [{ position: 0, status: 'succeeded' as const }, { position: 1, status: 'failed' as const }, { position: 2, status: 'skipped' as const }];
    expect(stepsToRollBack(steps).map((s) => s.position)).to.deep.equal([1, 0]);
  });

  it('back to the last good revision, also takes the skipped steps of those services, and only theirs', () => {
    const steps = [
      { position: 0, status: 'failed' as const, serviceId: 'a' }, { position: 1, status: 'skipped' as const, serviceId: 'a' },
      { position: 2, status: 'skipped' as const, serviceId: 'b' }, { position: 3, status: 'cancelled' as const, serviceId: 'a' },
      { position: 4, status: 'skipped' as const, serviceId: null },
    ];
    expect(stepsToRollBack(steps, new Set(['a'])).map((s) => s.position)).to.deep.equal([1, 0]);
    expect(stepsToRollBack(steps).map((s) => s.position)).to.deep.equal([0]);
  });
});
