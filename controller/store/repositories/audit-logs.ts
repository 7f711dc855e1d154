import type { Knex } from 'knex';
import type { Actor } from '../../auth/actor.js';
import { isUuid, type Page, type PageQuery } from './base-repository.js';

export interface AuditEntry {
  actorType: 'user' | 'service_account' | 'system' | 'webhook' | 'manifest';
  actorId?: string | null;
  actorName?: string | null;
  action: string;
  resourceType: string;
  resourceId?: string | null;
  environmentId?: string | null;
  /** Field names and facts, never values: audit entries must hold no secret. */
  details?: Record<string, unknown>;
  requestId?: string | null;
  ip?: string | null;
}

export type AuditFilter = Partial<Record<'environmentId' | 'resourceType' | 'resourceId' | 'action', string>>;

/** The audit_logs table: append-only entries, read newest first. */
export class AuditLog {
  constructor(private readonly db: Knex) {}

  async record(entry: AuditEntry, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('audit_logs').insert({
      ...entry,
      environmentId: isUuid(entry.environmentId) ? entry.environmentId : null,
      details: JSON.stringify(entry.details ?? {}),
    });
  }

  async page(where: AuditFilter, page: PageQuery): Promise<Page<Record<string, unknown>>> {
    const [items, [{ count }]] = await Promise.all([
      this.db('audit_logs').where(where).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
        .limit(page.limit).offset(page.offset),
      this.db('audit_logs').where(where).count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }

  static actorFields(actor: Actor | undefined) {
    return actor
      ? { actorType: actor.type, actorId: actor.id, actorName: actor.name }
      : { actorType: 'system' as const, actorId: null, actorName: null };
  }
}
