import type { AuditFilter } from '../../controller/audit/audit-log.js';
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
        resourceType: str({
          maxLength: 100, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
          description: 'Plural kebab-case, as the resource\'s URL segment: services, container-images, chat-channels…',
        }), resourceId: str({ maxLength: 200 }), action: str({ maxLength: 100 }),
      },
      response: listOf(auditRead),
      async handler(_ctx, { query }) {
        const where: AuditFilter = {};
        for (const k of ['environmentId', 'resourceType', 'resourceId', 'action'] as const) if (query[k] !== undefined) where[k] = query[k]!;
        return s.audit.page(where, query);
      },
    }),
  ];
}
