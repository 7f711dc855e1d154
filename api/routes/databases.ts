import type { Services } from '../../controller/services.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import { database } from '../../controller/kinds/database.js';
import { toDatabase, type DatabaseRow } from '../../controller/store/repositories/databases.js';
import { route } from '../http/route.js';
import { bool, int, listOf, object, paginationQuery, str } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';

const schemas = database.schemas!;

type DatabaseInput = Partial<Omit<DatabaseRow, 'passwordEnc'>> & { password?: string | null };

const NAME_TAKEN = 'A database with this name already exists in this environment';

/** Databases of an environment: CRUD, credential-free reads with hasCredentials, and a connection test. */
export default function databaseRoutes(s: Services) {
  const env = environmentOf(s);
  const repo = s.databaseOps.ctx.databases;
  const load = rowOf(repo, 'Database');

  /** Columns from a body: the password sealed; the server and type checked. */
  async function columns(environmentId: string, body: DatabaseInput): Promise<Partial<DatabaseRow>> {
    const { password, ...plain } = body;
    const out: Partial<DatabaseRow> = { ...plain };
    if (password !== undefined) out.passwordEnc = s.secretBox.sealOrNull(password);
    if (body.type !== undefined && !(await s.databaseTypes.findByName(body.type))) {
      throw validationError(`Unknown database type '${body.type}'`, 'type', 'GET /api/settings/database-types lists them');
    }
    if (body.serverId) {
      const server = await s.servers.findById(body.serverId);
      // a server of another environment is as unknown as a missing one
      if (!server || server.environmentId !== environmentId) throw validationError('Server not found in this environment', 'serverId');
    }
    return out;
  }

  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/databases', operationId: 'listDatabases', tag: 'databases',
      access: 'viewer', load: env, query: paginationQuery, response: listOf(schemas.read),
      summary: 'Databases of an environment, credential-free with hasCredentials',
      async handler(_ctx, { resource, query }) {
        const page = await repo.pageOf(resource.id, query);
        return { ...page, items: page.items.map(toDatabase) };
      },
    }),

    route<DatabaseInput>({
      method: 'POST', path: '/api/environments/{envId}/databases', operationId: 'createDatabase', tag: 'databases',
      access: 'operator', load: env, body: schemas.create, readOnly: schemas.readOnly, status: 201, response: schemas.read, errors: [409],
      summary: 'Create a database; the password is write-only and stored encrypted',
      async handler(ctx, { resource, body }) {
        if (await repo.findOne({ environmentId: resource.id, name: body.name })) throw conflict(NAME_TAKEN, 'Choose another name', 'name');
        const data = await s.settings.get<{ defaultMonitoringEnabled: boolean; defaultCollectionIntervalSec: number }>(resource.id, 'data');
        const row = await repo.insert({
          monitoringEnabled: data.defaultMonitoringEnabled, collectionIntervalSec: data.defaultCollectionIntervalSec,
          ...(await columns(resource.id, body)), environmentId: resource.id,
        });
        ctx.state.audit = { resourceType: 'databases', resourceId: row.id, details: { fields: Object.keys(body) } };
        return toDatabase(row);
      },
    }),

    route({
      method: 'GET', path: '/api/databases/{id}', operationId: 'getDatabase', tag: 'databases', access: 'viewer',
      load, response: schemas.read, summary: 'One database, credential-free with hasCredentials',
      handler: async (_ctx, { resource }) => toDatabase(resource),
    }),

    route<DatabaseInput, unknown, DatabaseRow>({
      method: 'PATCH', path: '/api/databases/{id}', operationId: 'updateDatabase', tag: 'databases', access: 'operator',
      load, body: schemas.update, readOnly: schemas.readOnly, response: schemas.read, errors: [409],
      summary: 'Change a database; a null password removes it',
      async handler(ctx, { resource, body }) {
        if (body.name !== undefined && body.name !== resource.name
          && await repo.findOne({ environmentId: resource.environmentId, name: body.name })) {
          throw conflict(NAME_TAKEN, 'Choose another name', 'name');
        }
        // monitoring switched on or re-timed: the next probe is due at the scheduler's next tick
        const reprobe = body.monitoringEnabled !== undefined || body.collectionIntervalSec !== undefined ? { nextMonitorAt: null } : {};
        const row = await repo.update(resource.id, { ...(await columns(resource.environmentId, body)), ...reprobe, generation: resource.generation + 1 });
        ctx.state.audit = { environmentId: resource.environmentId, details: { fields: Object.keys(body) } };
        return toDatabase(row!);
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'DELETE', path: '/api/databases/{id}', operationId: 'deleteDatabase', tag: 'databases', access: 'operator',
      load, status: 204, summary: 'Delete a database and its backup records (stored backup objects are deleted too)',
      async handler(ctx, { resource }) {
        for (const b of await s.databaseOps.ctx.backups.finishedOf(resource.id)) await s.databaseOps.deleteBackup(b);
        await repo.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name } };
        return undefined;
      },
    }),

    route<unknown, unknown, DatabaseRow>({
      method: 'POST', path: '/api/databases/{id}/test', operationId: 'testDatabase', tag: 'databases', access: 'operator',
      load, response: object({ ok: bool, message: str(), durationMs: int(0) }),
      summary: "Connection test: the type's check command inside the container, or a TCP connect to host:port",
      handler: async (_ctx, { resource }) => s.databaseOps.test(resource),
    }),
  ];
}
