// PostgreSQL session advisory locks, each held on a connection of its own for as long as the work
// runs. When a process dies its connections close and PostgreSQL releases what they held, so a
// crash never leaves a lock behind.
//
// The connections come from a pool of their own (`lockPool`), never from the pool the work's
// queries use: a held lock keeps its connection for the whole job or plan step, and work that
// holds one connection while it waits for another from the same pool deadlocks that pool. With
// the scheduler's jobs and the plan steps' server locks on the query pool (10 connections), a
// leader running a few slow jobs while three servers had a step each took every connection: the
// jobs' own queries, the plans' lease renewals and the API waited out the pool's acquire timeout
// (the API answered 503 "the database is not reachable" with the database up, and another replica
// took over plans whose runner was alive). Found by bench/chaos.ts.
import { createKnex, type Db } from './knex.js';

/** At most this many locks are held at once per process; one more waits for a connection (never for the query pool). */
export const LOCK_POOL_MAX = 25;

/** The pool session locks are held on: same database, its own connections (made as needed, closed when idle). */
export function lockPool(databaseUrl: string): Db {
  return createKnex(databaseUrl, LOCK_POOL_MAX);
}

/** A lock's name: one number, or a namespace and a key (hashed by PostgreSQL). */
export type LockName = number | [namespace: string, key: string];

type Conn = { query(sql: string, args: unknown[]): Promise<{ rows: Array<{ ok: boolean }> }> };

const sqlOf = (name: LockName) => (typeof name === 'number'
  ? { args: [name], lock: 'SELECT pg_try_advisory_lock($1) AS ok', unlock: 'SELECT pg_advisory_unlock($1)' }
  : { args: name, lock: 'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', unlock: 'SELECT pg_advisory_unlock(hashtext($1), hashtext($2))' });

export class SessionLocks {
  /** `db`: the pool the locks' connections come from (lockPool(url) in a controller). */
  constructor(private readonly db: Db) {}

  /** Closes the pool (after the work that holds locks has stopped). */
  close(): Promise<void> {
    return this.db.destroy();
  }

  /**
   * Runs `work` holding the lock, or returns `{held: false}` at once (work not run) when another
   * session holds it. An error of `work` (or of reaching the database) is thrown after the lock
   * is released.
   */
  async tryHolding<T>(name: LockName, work: () => Promise<T>): Promise<{ held: false } | { held: true; value: T }> {
    const sql = sqlOf(name);
    const conn = (await this.db.client.acquireConnection()) as Conn;
    try {
      const { rows } = await conn.query(sql.lock, sql.args);
      if (rows[0]!.ok !== true) return { held: false };
      try {
        return { held: true, value: await work() };
      } finally {
        await conn.query(sql.unlock, sql.args).catch(() => undefined);
      }
    } finally {
      await Promise.resolve(this.db.client.releaseConnection(conn)).catch(() => undefined);
    }
  }
}
