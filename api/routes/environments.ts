import type { Services } from '../../controller/services.js';
import { forbiddenScope } from '../../controller/errors/app-error.js';
import { toEnvironment } from '../../controller/store/repositories/environments.js';
import { route } from '../http/route.js';
import { int, listOf, nonEmpty, nullable, object, paginationQuery, resourceSchemas, str, timestamp, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { rowOf } from './loaders.js';
import { maySee } from '../../controller/auth/policy.js';
import { environment } from '../../controller/kinds/environment.js';

const environmentSchemas = environment.schemas!;

function assertVisible(ctx: Ctx, id: string) {
  if (ctx.state.actor && !maySee(ctx.state.actor, id)) throw forbiddenScope('This token is not allowed to access this environment');
}

// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): an environment lives in no
// environment (its collection is /api/environments), creating or deleting one needs an admin
// where kind routes need an operator, and an environment-limited token sees only its own.
export default function environmentRoutes(s: Services) {
  const load = rowOf(s.environments, 'Environment');
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments', operationId: 'listEnvironments', tag: 'environments', access: 'viewer',
      envExempt: true, summary: 'Environments visible to the caller', query: paginationQuery, response: listOf(environmentSchemas.read),
      async handler(ctx, { query }) {
        const allowed = ctx.state.actor!.environmentIds;
        const page = await s.environments.pageVisible(allowed, query);
        return { ...page, items: page.items.map(toEnvironment) };
      },
    }),

    route<{ name: string; description?: string | null }>({
      method: 'POST', path: '/api/environments', operationId: 'createEnvironment', tag: 'environments', access: 'admin',
      summary: 'Create an environment with default settings', body: environmentSchemas.create,
      readOnly: environmentSchemas.readOnly, status: 201, response: environmentSchemas.read,
      async handler(_ctx, { body }) {
        const env = await s.transaction(async (trx) => {
          const row = await s.environments.insert({ name: body.name, description: body.description ?? null }, trx);
          await s.settings.insertDefaults(row.id, trx);
          return row;
        });
        return toEnvironment(env);
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{id}', operationId: 'getEnvironment', tag: 'environments', access: 'viewer',
      envExempt: true, summary: 'One environment', response: environmentSchemas.read,
      async handler(ctx, { params }) {
        assertVisible(ctx, params.id);
        return toEnvironment(await load(ctx, params));
      },
    }),

    route<{ name?: string; description?: string | null }>({
      method: 'PATCH', path: '/api/environments/{id}', operationId: 'updateEnvironment', tag: 'environments', access: 'operator',
      summary: 'Rename or describe an environment', load, body: environmentSchemas.update,
      readOnly: environmentSchemas.readOnly, response: environmentSchemas.read,
      async handler(_ctx, { resource, body }) {
        const row = await s.environments.update(resource.id, { ...body, generation: resource.generation + 1 });
        return toEnvironment(row!);
      },
    }),

    route({
      method: 'DELETE', path: '/api/environments/{id}', operationId: 'deleteEnvironment', tag: 'environments', access: 'admin',
      summary: 'Delete an environment and everything in it', load, status: 204,
      async handler(ctx, { resource }) {
        await s.environments.delete(resource.id);
        ctx.state.audit = { environmentId: resource.id, details: { name: resource.name } };
        return undefined;
      },
    }),
  ];
}
