// Backups and restores are leased like deployment plans (docs/replicas.md): the replica running
// them renews their heartbeat three times per lease (PLAN_LEASE_MS); a run whose lease ran out has
// no process left to finish it (its replica died or lost the database), so whichever live replica
// sweeps first marks it failed, loudly: the Degraded condition and the same events as any failure,
// and removes what its dump had written so far.
// Nothing resumes it: a dump cut off halfway cannot go on, and the next scheduled run starts afresh.
import type { DatabaseContext } from './context.js';
import { announceBackup } from './backup-run.js';
import { announceRestore } from './restore-run.js';

export const ABANDONED = 'the controller running it stopped (its lease ran out): nothing will finish it';

/** Renews this process's leases, then fails every expired run; returns how many it failed. */
export async function tendLeases(ctx: DatabaseContext, leaseMs: number): Promise<number> {
  await ctx.backups.renewLeases(ctx.owner);
  await ctx.restores.renewLeases(ctx.owner);
  const backups = await ctx.backups.failExpired(leaseMs, ABANDONED);
  const restores = await ctx.restores.failExpired(leaseMs, ABANDONED);
  for (const b of backups) {
    // the dead run's partial object would never be finished nor listed anywhere
    await (await ctx.stores.of(b)).remove(b.objectKey)
      .catch((err: Error) => ctx.logger.warn('an abandoned backup\'s object was not removed', { backupId: b.id, error: err.message }));
    const db = await ctx.databases.findById(b.databaseId);
    if (db) await announceBackup(ctx, db, b);
  }
  for (const r of restores) {
    const db = await ctx.databases.findById(r.databaseId);
    if (db) await announceRestore(ctx, db, r);
  }
  if (backups.length || restores.length) {
    ctx.logger.warn('backups and restores whose controller stopped marked failed', { backups: backups.length, restores: restores.length });
  }
  return backups.length + restores.length;
}
