import type { Knex } from 'knex';
import type { Actor, Ctx } from '../../api/http/types.js';
import type { RouteSpec } from '../../api/http/route.js';
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

const pick = (v: unknown, key: string): string | undefined => {
  const x = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof x === 'string' ? x : undefined;
};

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

  /** The default audit entry of a successful write through the API. */
  async recordRequest(ctx: Ctx, spec: RouteSpec, resource: unknown, responseBody: unknown): Promise<void> {
    const note = ctx.state.audit ?? {};
    const body = ctx.request.body;
    await this.record({
      ...AuditLog.actorFields(ctx.state.actor),
      action: note.action ?? (typeof spec.audit === 'string' ? spec.audit : spec.operationId),
      resourceType: note.resourceType ?? spec.tag,
      resourceId: note.resourceId ?? ctx.params.id ?? pick(responseBody, 'id') ?? pick(resource, 'id') ?? null,
      environmentId: note.environmentId ?? ctx.params.envId ?? pick(responseBody, 'environmentId') ?? pick(resource, 'environmentId') ?? null,
      details: note.details ?? (body && typeof body === 'object' && !Array.isArray(body) ? { fields: Object.keys(body) } : {}),
      requestId: ctx.state.requestId,
      ip: ctx.state.clientIp,
    });
  }
}
