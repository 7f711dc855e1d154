import { expect } from 'chai';
import { initialAlertState, stepAlert, type AlertAction, type AlertPolicy, type AlertState } from '../../../controller/monitoring/alert-machine.js';

/** Feeds results one second apart; answers the actions (nulls left out, with their index) and the final state. */
function run(results: string, policy: AlertPolicy, start: AlertState = initialAlertState()) {
  let state = start;
  const actions: string[] = [];
  [...results].forEach((r, i) => {
    const out = stepAlert(state, r === '+', policy, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
    state = out.state;
    if (out.action) actions.push(`${i}:${out.action satisfies AlertAction}`);
  });
  return { actions, state };
}

describe('alert state machine', () => {
  const policy: AlertPolicy = { failuresBeforeDown: 3, successesBeforeUp: 2, reminderIntervalSec: 0 };

  it('goes down only after N consecutive failures and sends exactly one alert for a sustained outage', () => {
    expect(run('--+--+--', policy).actions).to.deep.equal([]);
    const { actions, state } = run('---------', policy);
    expect(actions).to.deep.equal(['2:down']);
    expect(state).to.include({ status: 'down', reminders: 0 });
    expect(state.downSince!.toISOString()).to.equal('2026-01-01T00:00:02.000Z');
  });

  it('recovers once after M consecutive successes; a success between failures does not recover', () => {
    expect(run('---+-+-++++', policy).actions).to.deep.equal(['2:down', '8:recovered']);
    expect(run('---++', policy).state).to.include({ status: 'up', failures: 0, successes: 0, downSince: null });
  });

  it('reminds at the interval while down and never while up', () => {
    const p = { ...policy, failuresBeforeDown: 1, reminderIntervalSec: 3 };
    const { actions, state } = run('----------++', p);
    expect(actions).to.deep.equal(['0:down', '3:reminder', '6:reminder', '9:reminder', '11:recovered']);
    expect(run('++++++', p).actions).to.deep.equal([]);
    expect(state.reminders).to.equal(0);
  });

  it('continues from a persisted state (a restart re-fires nothing)', () => {
    const down = run('---', policy).state;
    const restored: AlertState = JSON.parse(JSON.stringify(down), (k, v) => (k === 'downSince' || k === 'lastNotifiedAt') && v ? new Date(v) : v);
    expect(run('----', policy, restored).actions).to.deep.equal([]);
    expect(run('++', policy, restored).actions).to.deep.equal(['1:recovered']);
  });

  it('treats thresholds below 1 as 1', () => {
    expect(run('-+', { failuresBeforeDown: 0, successesBeforeUp: 0, reminderIntervalSec: 0 }).actions).to.deep.equal(['0:down', '1:recovered']);
  });
});
