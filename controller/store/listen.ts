// A LISTEN connection of its own (outside the pool): notifications arrive on it as they commit.
import { clientClassFor } from './database-target.js';

export interface Listener { end(): Promise<void> }

/**
 * Connects and LISTENs on `channel`. `onLost` is called once when an established connection
 * fails or ends (also after `end()`); a connection that never came up throws instead.
 */
export async function listen(databaseUrl: string, channel: string,
  on: { notify(payload: string): void; lost(why: unknown): void }): Promise<Listener> {
  const client = new (clientClassFor(databaseUrl))({ connectionString: databaseUrl });
  let connected = false;
  let lost = false;
  const lose = (why: unknown) => {
    if (lost) return;
    lost = true;
    client.end().catch(() => {});
    if (connected) on.lost(why);
  };
  client.on('error', lose);
  client.on('end', () => lose(new Error('connection ended')));
  client.on('notification', (n) => {
    if (n.channel === channel && n.payload) on.notify(n.payload);
  });
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (e) {
    lost = true;
    client.end().catch(() => {});
    throw e;
  }
  connected = true;
  return { end: () => client.end() };
}
