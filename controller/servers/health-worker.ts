// The background health reconciler: every SCHEDULER_HEALTH_CHECK_SEC one replica (advisory lock)
// checks every server, at most 8 at a time, each bounded by its own deadline, so a dead or
// black-holed server costs one lane for one timeout and never delays the others or the API.
import type { Services } from '../services.js';
import { DEFAULT_HEALTH_TIMEOUT_MS, sweepHealth } from './health.js';

export const HEALTH_JOB = 'servers.health';
export const HEALTH_LOG_RETENTION_JOB = 'health-log-retention';
const DAY_MS = 86_400_000;
/** Partitions kept ready ahead of today, so no check waits on a CREATE TABLE. */
const DAYS_AHEAD = 3;

/**
 * Health logs after the system setting healthLogRetentionDays: the daily partitions of the coming
 * days are created and every day wholly older than the retention is dropped (never row deletes);
 * alert states of checks not seen for as long (their container or port is gone) are deleted.
 */
export async function maintainHealthLogs(s: Services, now = new Date()): Promise<{ created: string[]; dropped: string[] }> {
  const days = Number((await s.systemSettings.get()).healthLogRetentionDays) || 30;
  const created = await s.healthLogs.partitions.ensure(now, DAYS_AHEAD);
  const dropped = await s.healthLogs.partitions.dropBefore(new Date(now.getTime() - days * DAY_MS));
  await s.alertStates.prune(days);
  return { created, dropped };
}

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
  const retention = async () => {
    const { created, dropped } = await maintainHealthLogs(s);
    if (created.length || dropped.length) s.logger.info('health log partitions maintained', { created, dropped });
  };
  // at start-up too: the first pass finds today's partition ready
  await s.scheduler.runOnce(HEALTH_LOG_RETENTION_JOB, retention);
  s.scheduler.every(HEALTH_LOG_RETENTION_JOB, 3600, retention);
  return async () => undefined;
}
