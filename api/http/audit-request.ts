import { AuditLog } from '../../controller/audit/audit-log.js';
import type { RouteSpec } from './route.js';
import type { Ctx } from './types.js';

const pick = (v: unknown, key: string): string | undefined => {
  const x = v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return typeof x === 'string' ? x : undefined;
};

/** The default audit entry of a successful write through the API. */
export async function recordRequest(audit: AuditLog, ctx: Ctx, spec: RouteSpec, resource: unknown, responseBody: unknown): Promise<void> {
  const note = ctx.state.audit ?? {};
  const body = ctx.request.body;
  await audit.record({
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
