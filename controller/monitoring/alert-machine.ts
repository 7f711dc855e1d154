// The alert state machine of one check, pure: N consecutive failures before "down", M consecutive
// successes before "up"; exactly one alert when it goes down, a reminder every reminderIntervalSec
// while it stays down, exactly one when it recovers. Flapping between the thresholds sends nothing.
// The caller persists the state with the check's result, so a restart neither re-fires nor forgets.

export interface AlertPolicy {
  /** Consecutive failed checks before the check is down (the notification type's bounceThreshold). */
  failuresBeforeDown: number;
  /** Consecutive successful checks before a down check is up again. */
  successesBeforeUp: number;
  /** Seconds between reminders while down; 0 sends none. */
  reminderIntervalSec: number;
}

export interface AlertState {
  status: 'up' | 'down';
  /** Consecutive failures (counted while up) and successes (counted while down). */
  failures: number;
  successes: number;
  reminders: number;
  downSince: Date | null;
  lastNotifiedAt: Date | null;
}

export type AlertAction = 'down' | 'reminder' | 'recovered' | null;

/** A check never seen before is up: it has to fail N times in a row to alert. */
export const initialAlertState = (): AlertState =>
  ({ status: 'up', failures: 0, successes: 0, reminders: 0, downSince: null, lastNotifiedAt: null });

/** The next state after one check result, and what to send (null: nothing). */
export function stepAlert(state: AlertState, ok: boolean, policy: AlertPolicy, now: Date): { state: AlertState; action: AlertAction } {
  if (state.status === 'up') {
    if (ok) return { state: { ...state, failures: 0, successes: 0 }, action: null };
    const failures = state.failures + 1;
    if (failures < Math.max(1, policy.failuresBeforeDown)) return { state: { ...state, failures, successes: 0 }, action: null };
    return { state: { status: 'down', failures, successes: 0, reminders: 0, downSince: now, lastNotifiedAt: now }, action: 'down' };
  }
  if (ok) {
    const successes = state.successes + 1;
    if (successes < Math.max(1, policy.successesBeforeUp)) return { state: { ...state, successes }, action: null };
    return { state: { ...initialAlertState(), lastNotifiedAt: now }, action: 'recovered' };
  }
  const failures = state.failures + 1;
  const due = policy.reminderIntervalSec > 0 && state.lastNotifiedAt !== null
    && now.getTime() - state.lastNotifiedAt.getTime() >= policy.reminderIntervalSec * 1000;
  if (!due) return { state: { ...state, failures, successes: 0 }, action: null };
  return { state: { ...state, failures, successes: 0, reminders: state.reminders + 1, lastNotifiedAt: now }, action: 'reminder' };
}
