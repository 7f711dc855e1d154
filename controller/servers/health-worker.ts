// The background health reconciler: every SCHEDULER_HEALTH_CHECK_SEC one replica (advisory lock)
// checks every server, at most 8 at a time, each bounded by its own deadline, so a dead or
// black-holed server costs one lane for one timeout and never delays the others or the API.
import type { Services } from '../services.js';
import { DEFAULT_HEALTH_TIMEOUT_MS, sweepHealth } from './health.js';
import { checkDatabases } from '../monitoring/database-checks.js';

export const HEALTH_JOB = 'servers.health';

export async function startHealthWorker(s: Services): Promise<() => Promise<void>> {
  const intervalSec = s.config.scheduler.healthCheckSec;
  // a check ends around the next pass (the scheduler never starts a pass while one runs), yet
  // gets 3 s at least: a busy but healthy server must not count as a failed check
  const timeoutMs = Math.min(DEFAULT_HEALTH_TIMEOUT_MS, Math.max(3000, intervalSec * 500));
  s.scheduler.every(HEALTH_JOB, intervalSec, async () => {
    const checked = await sweepHealth(s, { concurrency: 8, timeoutMs });
    const down = checked.filter((c) => c.result.status !== 'healthy').length;
    s.logger.debug('health sweep done', { servers: checked.length, unhealthy: down });
  });
  // monitored databases, each at its own collectionIntervalSec
  s.scheduler.every('databases.health', intervalSec, async () => { await checkDatabases(s); });
  // health logs after the system setting healthLogRetentionDays; alert states of checks not seen
  // for as long (their container or port is gone)
  s.scheduler.every('health-log-retention', 3600, async () => {
    const days = Number((await s.systemSettings.get()).healthLogRetentionDays) || 30;
    await s.healthLogs.prune(days);
    await s.alertStates.prune(days);
  });
  return async () => undefined;
}
