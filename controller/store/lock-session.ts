// A session advisory lock held on a connection of its own (outside the pool) for as long as the
// process keeps it: the leader lock of the replicas. PostgreSQL releases it when the connection
// closes, so a leader that dies (SIGKILL, lost network) hands leadership over with its socket.
import { clientClassFor } from './database-target.js';

export interface LockSession {
  /** pg_try_advisory_lock on this session: true when this session holds it now. */
  tryLock(): Promise<boolean>;
  /** A round trip on the session, bounded by `timeoutMs`: throws when the session is gone. */
  ping(timeoutMs: number): Promise<void>;
  end(): Promise<void>;
}

/**
 * Connects a dedicated session for the lock `[namespace, key]`. `lost` is called once when the
 * established connection fails or ends (also after `end()`); a connection that never came up throws.
 */
export async function openLockSession(databaseUrl: string, name: [namespace: string, key: string], lost: (why: unknown) => void): Promise<LockSession> {
  const client = new (clientClassFor(databaseUrl))({ connectionString: databaseUrl, keepAlive: true });
  let connected = false;
  let gone = false;
  const lose = (why: unknown) => {
    if (gone) return;
    gone = true;
    client.end().catch(() => {});
    if (connected) lost(why);
  };
  client.on('error', lose);
  client.on('end', () => lose(new Error('connection ended')));
  try {
    await client.connect();
  } catch (e) {
    gone = true;
    client.end().catch(() => {});
    throw e;
  }
  connected = true;
  return {
    async tryLock() {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', name);
      return rows[0]!.ok === true;
    },
    async ping(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the lock session did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([client.query('SELECT 1'), late]);
      } catch (e) {
        lose(e);
        throw e;
      } finally {
        clearTimeout(timer);
      }
    },
    end: async () => {
      lose(new Error('ended'));
    },
  };
}
