import crypto from 'node:crypto';
import type { Knex } from 'knex';

export const REPLAY_WINDOW_MS = 5 * 60_000;

export type ReplayClaim =
  | { kind: 'first'; key: string }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'in_progress' };

/**
 * Replay protection for incoming webhooks: the same endpoint, signature and body within five
 * minutes is one delivery. The first claims the key; a later one gets the stored answer (or
 * "in progress" while the first still runs). A failed first attempt releases the key so the
 * sender may retry.
 */
export class ReplayGuard {
  constructor(private readonly db: Knex) {}

  static keyOf(endpoint: string, signature: string, rawBody: Buffer): string {
    return crypto.createHash('sha256').update(endpoint).update('\n').update(signature).update('\n').update(rawBody).digest('hex');
  }

  async claim(key: string): Promise<ReplayClaim> {
    const { rows } = await this.db.raw(
      `INSERT INTO incoming_webhook_replays (key) VALUES (?)
       ON CONFLICT (key) DO UPDATE SET created_at = now(), status = NULL, response = NULL
         WHERE incoming_webhook_replays.created_at < now() - (? * interval '1 millisecond')
       RETURNING key`, [key, REPLAY_WINDOW_MS]);
    if (rows.length) {
      if (Math.random() < 0.05) void this.prune().catch(() => {});
      return { kind: 'first', key };
    }
    const row = await this.db('incoming_webhook_replays').where('key', key).first();
    if (!row || row.status === null) return { kind: 'in_progress' };
    return { kind: 'replay', status: row.status, body: row.response };
  }

  async complete(key: string, status: number, body: unknown): Promise<void> {
    await this.db('incoming_webhook_replays').where('key', key).update({ status, response: JSON.stringify(body) });
  }

  async release(key: string): Promise<void> {
    await this.db('incoming_webhook_replays').where('key', key).delete();
  }

  private async prune(): Promise<void> {
    await this.db('incoming_webhook_replays').where('createdAt', '<', new Date(Date.now() - 2 * REPLAY_WINDOW_MS)).delete();
  }
}
