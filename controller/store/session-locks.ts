// PostgreSQL session advisory locks, each held on a connection of its own for as long as the work
// runs. When a process dies its connections close and PostgreSQL releases what they held, so a
// crash never leaves a lock behind.
import type { Db } from './knex.js';

/** A lock's name: one number, or a namespace and a key (hashed by PostgreSQL). */
export type LockName = number | [namespace: string, key: string];

type Conn = { query(sql: string, args: unknown[]): Promise<{ rows: Array<{ ok: boolean }> }> };

const sqlOf = (name: LockName) => (typeof name === 'number'
  ? { args: [name], lock: 'SELECT pg_try_advisory_lock($1) AS ok', unlock: 'SELECT pg_advisory_unlock($1)' }
  : { args: name, lock: 'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', unlock: 'SELECT pg_advisory_unlock(hashtext($1), hashtext($2))' });

export class SessionLocks {
  constructor(private readonly db: Db) {}

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
