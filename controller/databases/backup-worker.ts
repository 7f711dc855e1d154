import type { Services } from '../services.js';

/**
 * Due backups and restore drills, on the shared scheduler (one replica per tick). Runs a crashed
 * process left `running` are marked failed first: nothing would ever finish them.
 */
export async function startBackupScheduler(s: Services): Promise<() => Promise<void>> {
  const abandoned = await s.databaseOps.ctx.backups.failAbandoned();
  if (abandoned) s.logger.warn('backups left running by a stopped controller marked failed', { count: abandoned });
  s.scheduler.every('database-backups', s.config.scheduler.backupSec, () => s.databaseOps.tick());
  return () => s.databaseOps.stop();
}
