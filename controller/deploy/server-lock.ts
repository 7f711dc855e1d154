// One plan at a time per server: a PostgreSQL advisory lock keyed by the server id, held on its
// own connection for the duration of the step. When a controller dies its connection closes and
// PostgreSQL releases the lock, so a crash never leaves a server locked.
import type { Knex } from 'knex';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ServerBusy extends Error {}

export async function withServerLock<T>(db: Knex, serverId: string, fn: () => Promise<T>, waitMs = 10 * 60_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const conn = await db.client.acquireConnection();
    let locked = false;
    try {
      const { rows } = await conn.query("SELECT pg_try_advisory_lock(hashtext('stevedore-server'), hashtext($1)) AS ok", [serverId]);
      locked = rows[0].ok === true;
      if (locked) {
        try {
          return await fn();
        } finally {
          await conn.query("SELECT pg_advisory_unlock(hashtext('stevedore-server'), hashtext($1))", [serverId]).catch(() => undefined);
        }
      }
    } finally {
      await db.client.releaseConnection(conn);
    }
    if (Date.now() > deadline) throw new ServerBusy(`server ${serverId} stayed busy with another plan`);
    await sleep(250);
  }
}
