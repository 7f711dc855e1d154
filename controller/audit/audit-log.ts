import type { Knex } from 'knex';
import type { Actor } from '../auth/roles.js';
import { isUuid } from '../store/repositories/base-repository.js';

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

export class AuditLog {
  constructor(private readonly db: Knex) {}

  async record(entry: AuditEntry, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('audit_logs').insert({
      ...entry,
      environmentId: isUuid(entry.environmentId) ? entry.environmentId : null,
      details: JSON.stringify(entry.details ?? {}),
    });
  }

  static actorFields(actor: Actor | undefined) {
    return actor
      ? { actorType: actor.type, actorId: actor.id, actorName: actor.name }
      : { actorType: 'system' as const, actorId: null, actorName: null };
  }
}
