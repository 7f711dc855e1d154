// Stores one check result (a health log row) and steps its alert state in the same transaction,
// publishing health.failed (down, reminder) or health.recovered when the machine says so: the
// event, the state and the log commit together, so a crash or restart neither re-fires nor loses one.
import type { Services } from '../services.js';
import type { AlertStateRow } from '../store/repositories/alert-states.js';
import type { HealthLogRow } from '../store/repositories/health-logs.js';
import { initialAlertState, stepAlert, type AlertAction, type AlertPolicy } from './alert-machine.js';
import { ALERT_TYPE, RECOVERED_TYPE } from './alert-policy.js';
import { countsAsFailure, type CheckResult } from './check-result.js';

export interface Recorded { log: HealthLogRow; action: AlertAction; state: AlertStateRow }

export async function recordCheck(s: Services, r: CheckResult, policy: AlertPolicy, now = new Date()): Promise<Recorded> {
  return s.transaction(async (trx) => {
    const log = await s.healthLogs.insert({ ...r, checkedAt: now }, trx);
    const previous = await s.alertStates.lock(r.checkKey, trx);
    const { state, action } = stepAlert(previous ?? initialAlertState(), !countsAsFailure(r), policy, now);
    const row: AlertStateRow = {
      checkKey: r.checkKey, environmentId: r.environmentId, kind: r.kind, serverId: r.serverId, deploymentId: r.deploymentId,
      target: r.target, ...state, lastResult: r.status, lastError: r.error, lastCheckedAt: now,
    };
    await s.alertStates.save(row, trx);
    if (action) {
      const data = {
        checkKey: r.checkKey, kind: r.kind, target: r.target, serverId: r.serverId, deploymentId: r.deploymentId,
        alert: action, downSince: (action === 'recovered' ? previous?.downSince : state.downSince)?.toISOString() ?? null,
        reminders: state.reminders, message: messageOf(r, action), error: r.error, details: r.details,
      };
      await s.events.publish(action === 'recovered' ? RECOVERED_TYPE : ALERT_TYPE, r.environmentId, data, trx);
    }
    return { log, action, state: row };
  });
}

function messageOf(r: CheckResult, action: Exclude<AlertAction, null>): string {
  if (action === 'recovered') return `${r.target} recovered`;
  const what = action === 'down' ? 'is down' : 'is still down';
  return `${r.target} ${what}${r.error ? `: ${r.error}` : ''}`;
}
