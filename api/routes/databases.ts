import type { Services } from '../../controller/services.js';
import type { DatabaseRow } from '../../controller/store/repositories/databases.js';
import { route } from '../http/route.js';
import { bool, int, object, str } from '../http/schema.js';
import { rowOf } from './loaders.js';

/**
 * A database's connection test. Its CRUD routes are the generic ones (controller/kinds/database.ts
 * with `api`, DatabaseKindRepository, and the Database entry of kind-hooks.ts).
 */
export default function databaseRoutes(s: Services) {
  const load = rowOf(s.databaseOps.ctx.databases, 'Database');
  return [
    route<unknown, unknown, DatabaseRow>({
      method: 'POST', path: '/api/databases/{id}/test', operationId: 'testDatabase', tag: 'databases', access: 'operator',
      load, response: object({ ok: bool, message: str(), durationMs: int(0) }),
      summary: "Connection test: the type's check command inside the container, or a TCP connect to host:port",
      handler: async (_ctx, { resource }) => s.databaseOps.test(resource),
    }),
  ];
}
