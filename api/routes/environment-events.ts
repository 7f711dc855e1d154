// `stevedore events`: the environment's recent events, what GET /api/events streams live (the same
// types and data; in-app notifications stay the stream's: they belong to one user).
import type { Services } from '../../controller/services.js';
import { route } from '../http/route.js';
import { enumOf, int, listOf, object, paginationQuery, timestamp, type Schema } from '../http/schema.js';
import { environmentOf } from './loaders.js';
import { STREAM_EVENTS } from './notifications.js';

const LISTED = [...STREAM_EVENTS].filter((t) => t !== 'notification.created');

const eventRead = object({
  id: int(1, Number.MAX_SAFE_INTEGER, { description: 'The id GET /api/events sends (Last-Event-ID): a stream opened with lastEventId continues after it' }),
  type: enumOf(...LISTED),
  at: timestamp,
  data: { type: 'object', additionalProperties: true, description: "The frame's data, as GET /api/events sends it" } as Schema,
}, ['id', 'type', 'at', 'data']);

export default function environmentEventRoutes(s: Services) {
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/events', operationId: 'listEnvironmentEvents', tag: 'events', access: 'viewer',
      load: environmentOf(s), query: paginationQuery, response: listOf(eventRead),
      summary: `The environment's events, newest first: ${LISTED.join(', ')} (what GET /api/events streams)`,
      async handler(_ctx, { params, query }) {
        const page = await s.events.pageOfTypes(params.envId, LISTED, query);
        return {
          items: page.items.map((e) => ({ id: e.id, type: e.type, at: e.createdAt, data: { ...e.data, environmentId: e.environmentId, at: e.createdAt } })),
          total: page.total, limit: query.limit, offset: query.offset,
        };
      },
    }),
  ];
}
