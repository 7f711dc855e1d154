import type { Knex } from 'knex';

export interface IdempotencyKeyRow {
  caller: string; key: string; method: string; path: string; requestHash: string; state: 'running' | 'done';
  statusCode: number | null; responseBody: unknown; createdAt: Date;
}

export type NewIdempotencyKey = Pick<IdempotencyKeyRow, 'caller' | 'key' | 'method' | 'path' | 'requestHash'>;

/** The Idempotency-Key records of write requests (api/middleware/idempotency.ts), one per caller and key. */
export class IdempotencyKeysRepository {
  constructor(private readonly db: Knex) {}

  /** Forgets every key recorded before `before`. */
  async forgetOlderThan(before: Date): Promise<void> {
    await this.db('idempotency_keys').where('createdAt', '<', before).delete();
  }

  /** Records the key as running; false when the caller already holds that key. */
  async claim(row: NewIdempotencyKey): Promise<boolean> {
    const inserted = await this.db('idempotency_keys').insert({ ...row, state: 'running' }).onConflict(['caller', 'key']).ignore().returning('key');
    return inserted.length > 0;
  }

  async find(caller: string, key: string): Promise<IdempotencyKeyRow | undefined> {
    return this.db('idempotency_keys').where({ caller, key }).first();
  }

  /** Drops the key: its request failed (or may not be replayed), so the caller may send it again. */
  async release(caller: string, key: string): Promise<void> {
    await this.db('idempotency_keys').where({ caller, key }).delete();
  }

  /** Stores the answer later repeats of the key replay. */
  async complete(caller: string, key: string, answer: { statusCode: number; responseBody: string }): Promise<void> {
    await this.db('idempotency_keys').where({ caller, key }).update({ state: 'done', ...answer });
  }
}
