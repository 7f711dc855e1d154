import type { Services } from '../../controller/services.js';
import { route } from '../http/route.js';
import { listOf, nullable, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';

const auditRead = object({
  id: uuid, actorType: str(), actorId: nullable(uuid), actorName: nullable(str()), action: str(),
  resourceType: str(), resourceId: nullable(str()), environmentId: nullable(uuid), details: { type: 'object' },
  requestId: nullable(str()), ip: nullable(str()), createdAt: timestamp,
});

interface AuditQuery {
  limit: number; offset: number; environmentId?: string; resourceType?: string; resourceId?: string; action?: string;
}

export default function auditLogRoutes(s: Services) {
  return [
    route<unknown, AuditQuery>({
      method: 'GET', path: '/api/audit-logs', operationId: 'queryAuditLog', tag: 'audit', access: 'authenticated',
      summary: 'Audit entries, newest first, filtered by environmentId, resourceType, resourceId and action',
      query: {
        ...paginationQuery, environmentId: uuid,
        resourceType: str({ maxLength: 100 }), resourceId: str({ maxLength: 200 }), action: str({ maxLength: 100 }),
      },
      response: listOf(auditRead),
      async handler(_ctx, { query }) {
        const where: Record<string, string> = {};
        for (const k of ['environmentId', 'resourceType', 'resourceId', 'action'] as const) if (query[k] !== undefined) where[k] = query[k]!;
        const [items, [{ count }]] = await Promise.all([
          s.db('audit_logs').where(where).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }])
            .limit(query.limit).offset(query.offset),
          s.db('audit_logs').where(where).count({ count: '*' }),
        ]);
        return { items, total: Number(count), limit: query.limit, offset: query.offset };
      },
    }),
  ];
}
