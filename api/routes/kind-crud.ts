import { notFound, validationError } from '../../controller/errors/app-error.js';
import { nameColumnOf, type KindApi, type KindDescriptor } from '../../controller/kinds/kind.js';
import type { Services } from '../../controller/services.js';
import type { PageQuery } from '../../controller/store/repositories/base-repository.js';
import { repositoryFor } from '../../controller/store/repositories/kind-repositories.js';
import { nounOf, type KindRow } from '../../controller/store/repositories/kind-repository.js';
import { route, type RouteSpec } from '../http/route.js';
import type { Ctx } from '../http/types.js';
import { listOf, paginationQuery, uuid } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';

/**
 * The collection route of a kind with `api`: under its environment, or at /api/<path> with the
 * environment in the query ('query'). The MCP list tool replays it too (api/mcp/tool-bindings.ts).
 */
export const kindCollectionPath = (api: KindApi): string =>
  (api.collection === 'query' ? `/api/${api.path}` : `/api/environments/{envId}/${api.path}`);

/** 'external-entities' -> 'ExternalEntities', for operation ids. */
const pascal = (path: string) => path.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('');

/**
 * What a kind's routes do beyond its descriptor and repository, with the services only the API
 * layer holds (the outgoing guard, the backup stores): api/routes/kind-hooks.ts.
 */
export interface KindRouteHooks {
  /** Checks of a create (no row) or update body its schema cannot say; a throw refuses it and nothing is written. */
  check?(body: Record<string, unknown>, row?: KindRow): Promise<void> | void;
  /** Work before the row is deleted: what lives outside its table and goes with it. */
  beforeDelete?(row: KindRow): Promise<void>;
  /** Reads with what only other parts of the store know (a var's usage by files and services), in the rows' order. */
  present?(rows: KindRow[], items: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>>;
}

/**
 * The CRUD routes of a kind, built from its descriptor: list (the spec's pagination), create,
 * get, update, delete; bodies and reads are the descriptor's `schemas`, so validation and the
 * OpenAPI document follow it; secret fields are sealed into their columns and read only as
 * `has<Field>`. Reads need viewer, writes operator. mount.ts adds what every route gets: the
 * manifest ownership check (409 on owned fields, on deleting an owned object) and the audit
 * entry (resourceType: the path segment; the fields a write set, the name of what it deleted).
 */
export function kindCrudRoutes(s: Services, kind: KindDescriptor, hooks: KindRouteHooks = {}): RouteSpec[] {
  const api = kind.api!;
  const schemas = kind.schemas!;
  const repo = repositoryFor(s.db, kind);
  const noun = nounOf(kind.kind);
  const plural = api.path.replace(/-/g, ' ');
  const tag = api.path;
  const load = rowOf<KindRow>(repo, noun[0].toUpperCase() + noun.slice(1));
  const present = async (rows: KindRow[]) => {
    const items = await repo.present(rows);
    return hooks.present ? hooks.present(rows, items) : items;
  };
  const one = async (row: KindRow) => (await present([row]))[0];
  /** A write's audit entry names the object and the fields it set (never their values). */
  const audited = (ctx: Ctx, row: KindRow, body: Record<string, unknown>) => {
    ctx.state.audit = { details: { [nameColumn]: row[nameColumn], fields: Object.keys(body) } };
    return row;
  };
  const byQuery = api.collection === 'query';
  const collection = kindCollectionPath(api);
  const nameColumn = nameColumnOf(kind) ?? 'id';
  const secretNote = kind.secrets?.length ? `; ${kind.secrets.map((f) => f.field).join(' and ')} write-only, stored encrypted` : '';

  /** A body's secret fields as their sealed columns (null removes one); the rest as they are. */
  const sealed = (body: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...body };
    for (const sf of kind.secrets ?? []) {
      if (!(sf.field in out)) continue;
      const value = out[sf.field] as string | null;
      delete out[sf.field];
      const problem = value === null ? null : sf.check?.(value);
      if (problem) throw validationError(`${sf.field}: ${problem}`, sf.field);
      Object.assign(out, { [sf.column]: s.secretBox.sealOrNull(value) }, value === null ? {} : sf.derived?.(value));
    }
    return out;
  };

  /** The environment of a 'query' collection: named by the list's query or the create body. */
  const environment = async (id: string, missing: (m: string) => Error) => {
    const env = await s.environments.findById(id);
    if (!env) throw missing(`Environment ${id} not found`);
    return env;
  };

  return [
    route<unknown, PageQuery & { environmentId?: string }>({
      method: 'GET', path: collection, operationId: `list${pascal(api.path)}`, tag, access: 'viewer',
      summary: `The ${plural} of an environment`,
      query: byQuery ? { environmentId: uuid, ...paginationQuery } : paginationQuery,
      response: listOf(schemas.read), ...(byQuery && { errors: [404] }), // the environment the query names
      async handler(ctx, { params, query }) {
        let environmentId = params.envId;
        if (byQuery) {
          if (!query.environmentId) throw validationError('environmentId is required', 'environmentId');
          environmentId = (await environment(query.environmentId, () => notFound('Environment'))).id;
        }
        const page = await repo.page(environmentId, { limit: query.limit, offset: query.offset });
        // a hot read: one round trip when the page has rows; the environment is looked up only when it is empty
        if (!byQuery && page.items.length === 0) await environmentOf(s)(ctx, params);
        return { ...page, items: await present(page.items) };
      },
    }),

    route<Record<string, unknown>>({
      method: 'POST', path: collection, operationId: `create${kind.kind}`, tag, access: 'operator',
      summary: `Create a ${noun}${secretNote}`, ...(byQuery ? {} : { load: environmentOf(s) }),
      // the environment is in the body: the caller must be an operator there (policy.ts)
      ...(byQuery && { actsIn: async (_ctx: Ctx, { body }: { body: Record<string, unknown> }) => [(await environment(body.environmentId as string, (m) => validationError(m, 'environmentId'))).id] }),
      body: schemas.create, readOnly: schemas.readOnly, status: 201, response: schemas.read, errors: [409],
      async handler(ctx, { params, body }) {
        const environmentId = byQuery
          ? (await environment(body.environmentId as string, (m) => validationError(m, 'environmentId'))).id
          : params.envId;
        await hooks.check?.(body);
        return one(audited(ctx, await repo.create(environmentId, sealed(body)), body));
      },
    }),

    route<unknown, unknown, KindRow>({
      method: 'GET', path: `/api/${api.path}/{id}`, operationId: `get${kind.kind}`, tag, access: 'viewer',
      summary: `One ${noun}`, load, response: schemas.read,
      handler: (_ctx, { resource }) => one(resource),
    }),

    route<Record<string, unknown>, unknown, KindRow>({
      method: 'PATCH', path: `/api/${api.path}/{id}`, operationId: `update${kind.kind}`, tag, access: 'operator',
      summary: `Change a ${noun}; fields a manifest sets are refused (409)${secretNote ? `; a null ${kind.secrets!.map((f) => f.field).join(' or ')} removes it` : ''}`, load,
      body: schemas.update, readOnly: schemas.updateReadOnly ?? schemas.readOnly, response: schemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await hooks.check?.(body, resource);
        return one(audited(ctx, await repo.change(resource, sealed(body)), body));
      },
    }),

    route<unknown, unknown, KindRow>({
      method: 'DELETE', path: `/api/${api.path}/{id}`, operationId: `delete${kind.kind}`, tag, access: 'operator',
      summary: `Delete a ${noun}; refused (409) while a manifest declares it`, load, status: 204, errors: [409],
      async handler(ctx, { resource }) {
        await hooks.beforeDelete?.(resource);
        await repo.remove(resource);
        ctx.state.audit = { environmentId: resource.environmentId, details: { [nameColumn]: resource[nameColumn] } };
        return undefined;
      },
    }),
  ];
}
