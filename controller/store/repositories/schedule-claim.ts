import type { Knex } from 'knex';

/**
 * Moves a schedule's next time (`column` of the row `q` selects) from `was` to `next`; true for the
 * one caller that moved it (compare-and-set on the old time), so a run happens once even with
 * several replicas or after a restart. Databases' and volumes' schedules are claimed here.
 */
export async function claimNextRun(q: Knex.QueryBuilder, column: string, was: Date | null, next: Date | null): Promise<boolean> {
  const n = await (was === null ? q.whereNull(column) : q.where(column, was)).update({ [column]: next });
  return n === 1;
}
