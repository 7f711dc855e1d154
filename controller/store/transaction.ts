import type { Db, Trx } from './knex.js';

export type { Trx } from './knex.js';

/** Runs `work` in one database transaction: the way code outside the store groups repository writes. */
export const transactionRunner = (db: Db) => <T>(work: (trx: Trx) => Promise<T>): Promise<T> => db.transaction(work);

/** Serialises the transactions that name the same key, until each commits (pg_advisory_xact_lock). */
export async function lockUntilCommit(trx: Trx, key: string | number): Promise<void> {
  if (typeof key === 'number') await trx.raw('SELECT pg_advisory_xact_lock(?)', [key]);
  else await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [key]);
}
