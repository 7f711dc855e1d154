import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from '../logger.js';

export interface StreamEvent {
  id: number;
  /** SSE names (plan.updated, plan.step, deployment.updated, health.changed, drift.changed,
   *  notification.created, log) or notification type codes (deployment.success, …). */
  type: string;
  environmentId: string | null;
  data: Record<string, unknown>;
  createdAt: string;
}

const CHANNEL = 'stevedore_events';

/**
 * Events are rows in `events`, announced with NOTIFY at commit; every replica LISTENs and hands
 * them to its local subscribers (SSE streams, notification fan-out). Data must never hold a
 * secret value: publishers pass names and ids.
 */
export class EventBus {
  private readonly local = new EventEmitter();
  private listener: pg.Client | null = null;

  constructor(private readonly db: Knex, private readonly databaseUrl: string, private readonly logger: Logger) {
    this.local.setMaxListeners(0);
  }

  async publish(type: string, environmentId: string | null, data: Record<string, unknown>, trx?: Knex.Transaction): Promise<StreamEvent> {
    const conn = trx ?? this.db;
    const [row] = await conn('events').insert({ type, environmentId, data: JSON.stringify(data) }).returning('*');
    await conn.raw('SELECT pg_notify(?, ?)', [CHANNEL, String(row.id)]);
    return toEvent(row);
  }

  /** Calls `fn` for every event published by any replica from now on; returns an unsubscribe. */
  subscribe(fn: (e: StreamEvent) => void): () => void {
    this.local.on('event', fn);
    return () => this.local.off('event', fn);
  }

  /** Events after `lastId` (for Last-Event-ID resume), oldest first. */
  async since(lastId: number, environmentId?: string | null, limit = 500): Promise<StreamEvent[]> {
    const q = this.db('events').where('id', '>', lastId).orderBy('id').limit(limit);
    if (environmentId) q.where('environmentId', environmentId);
    return (await q).map(toEvent);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', (e) => this.logger.warn('event listener connection failed', { error: e.message }));
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      void this.db('events').where('id', Number(n.payload)).first().then(
        (row) => row && this.local.emit('event', toEvent(row)),
        (e) => this.logger.warn('event read failed', { error: String(e) }),
      );
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.listener = client;
  }

  async stop(): Promise<void> {
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => {});
  }
}

function toEvent(row: { id: number | string; type: string; environmentId: string | null; data: Record<string, unknown>; createdAt: Date | string }): StreamEvent {
  return {
    id: Number(row.id),
    type: row.type,
    environmentId: row.environmentId,
    data: row.data,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
