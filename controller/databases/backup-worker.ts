import type { Services } from '../services.js';

/**
 * Due backups and restore drills, on the shared scheduler (one replica per tick). Every replica
 * renews the leases of the runs it has and fails runs whose lease ran out (lease.ts), at start-up
 * and three times per lease (PLAN_LEASE_MS): a run another replica still renews is left alone.
 */
export async function startBackupScheduler(s: Services): Promise<() => Promise<void>> {
  await s.databaseOps.startLeases(s.config.replicas.planLeaseMs);
  await s.volumeOps.startLeases(s.config.replicas.planLeaseMs);
  s.scheduler.every('database-backups', s.config.scheduler.backupSec, () => s.databaseOps.tick());
  // volumes' backups on the same cadence (docs/volumes.md)
  s.scheduler.every('volume-backups', s.config.scheduler.backupSec, () => s.volumeOps.tick());
  return async () => {
    await s.volumeOps.stop();
    await s.databaseOps.stop();
  };
}
