import type { Services } from '../../controller/services.js';
import { toVar, type VarRow } from '../../controller/store/repositories/vars.js';
import { route } from '../http/route.js';
import { listOf, paginationQuery } from '../http/schema.js';
import { variable } from '../../controller/kinds/var.js';
import { environmentOf, rowOf } from './loaders.js';

const { create, update, read: varRead, readOnly, updateReadOnly } = variable.schemas!;

/** Vars: plaintext values for ${KEY} placeholders; operators write them. */
export default function varRoutes(s: Services) {
  const cs = s.configStore;
  const load = rowOf(cs.vars, 'Var');
  const withUsage = async (rows: VarRow[], environmentId: string) => {
    const { keys } = await cs.catalog.usage(environmentId);
    return rows.map((r) => ({ ...toVar(r), usage: keys.get(r.key) ?? { configFiles: [], services: [] } }));
  };
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/vars', operationId: 'listVars', tag: 'vars', access: 'viewer',
      summary: 'Vars with values and usage', load: environmentOf(s), query: paginationQuery, response: listOf(varRead),
      async handler(_ctx, { resource, query }) {
        const page = await cs.vars.list({ environmentId: resource.id }, query, 'key');
        return { ...page, items: await withUsage(page.items, resource.id) };
      },
    }),

    route<{ key: string; value: string; description?: string | null }>({
      method: 'POST', path: '/api/environments/{envId}/vars', operationId: 'createVar', tag: 'vars', access: 'operator',
      summary: 'Create a var', load: environmentOf(s), body: create,
      readOnly, status: 201, response: varRead, errors: [409],
      async handler(ctx, { resource, body }) {
        const row = await cs.vars.insert({ environmentId: resource.id, key: body.key, value: body.value, description: body.description ?? null });
        ctx.state.audit = { details: { key: row.key } };
        return (await withUsage([row], resource.id))[0];
      },
    }),

    route({
      method: 'GET', path: '/api/vars/{id}', operationId: 'getVar', tag: 'vars', access: 'viewer',
      summary: 'One var with its usage', load, response: varRead,
      handler: async (_ctx, { resource }) => (await withUsage([resource], resource.environmentId))[0],
    }),

    route<{ value?: string; description?: string | null }, unknown, VarRow>({
      method: 'PATCH', path: '/api/vars/{id}', operationId: 'updateVar', tag: 'vars', access: 'operator',
      summary: 'Change the value or description (the key is fixed)', load,
      body: update, readOnly: updateReadOnly, response: varRead,
      async handler(ctx, { resource, body }) {
        const row = await cs.vars.update(resource.id, body);
        ctx.state.audit = { details: { key: resource.key, fields: Object.keys(body) } };
        return (await withUsage([row!], resource.environmentId))[0];
      },
    }),

    route<unknown, unknown, VarRow>({
      method: 'DELETE', path: '/api/vars/{id}', operationId: 'deleteVar', tag: 'vars', access: 'operator',
      summary: 'Delete a var', load, status: 204,
      async handler(ctx, { resource }) {
        await cs.vars.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { key: resource.key } };
        return undefined;
      },
    }),
  ];
}
