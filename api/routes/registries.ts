import type { Services } from '../../controller/services.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import { registry } from '../../controller/kinds/registry.js';
import { toRegistry, type RegistryRow } from '../../controller/store/repositories/registries.js';
import { route } from '../http/route.js';
import { listOf, paginationQuery } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';

const registrySchemas = registry.schemas!;

type RegistryInput = {
  name: string; type: RegistryRow['type']; registryUrl: string; repositoryPrefix?: string | null;
  token?: string | null; username?: string | null; password?: string | null; isDefault?: boolean;
  refreshIntervalMinutes?: number; autoLinkPattern?: string | null;
};

/** autoLinkPattern is a regular expression matched against image names: it must compile. */
function assertPattern(pattern: string | null | undefined) {
  if (pattern == null) return;
  try {
    new RegExp(pattern);
  } catch {
    throw validationError('autoLinkPattern is not a valid regular expression', 'autoLinkPattern');
  }
}

const NAME_TAKEN = 'A registry connection with this name already exists in this environment';

export default function registryRoutes(s: Services) {
  const env = environmentOf(s);
  const load = rowOf(s.registries, 'Registry connection');

  /** Columns from an API body: secrets sealed, read-only and write-only names mapped. */
  function columns(body: Partial<RegistryInput>): Partial<RegistryRow> {
    const { token, password, ...plain } = body;
    const out: Partial<RegistryRow> = { ...plain };
    if (token !== undefined) out.tokenEnc = s.secretBox.sealOrNull(token);
    if (password !== undefined) out.passwordEnc = s.secretBox.sealOrNull(password);
    return out;
  }

  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/registries', operationId: 'listRegistries', tag: 'registries',
      access: 'viewer', query: paginationQuery, response: listOf(registrySchemas.read),
      summary: 'Registry connections of an environment, credential-free',
      async handler(ctx, { params, query }) {
        // A hot read: one round trip when the page has rows; the environment is checked only when it is empty.
        const page = await s.registries.pageOf(params.envId, query);
        if (page.items.length === 0) await env(ctx, params);
        return { ...page, items: page.items.map(toRegistry) };
      },
    }),

    route<RegistryInput>({
      method: 'POST', path: '/api/environments/{envId}/registries', operationId: 'createRegistry', tag: 'registries',
      access: 'operator', load: env, body: registrySchemas.create, readOnly: registrySchemas.readOnly,
      status: 201, response: registrySchemas.read, errors: [409],
      summary: 'Create a registry connection; token and password are write-only and stored encrypted',
      async handler(ctx, { resource, body }) {
        assertPattern(body.autoLinkPattern);
        await s.outgoing.validate(body.registryUrl, 'registryUrl');
        const row = await s.transaction(async (trx) => {
          if (await s.registries.findOne({ environmentId: resource.id, name: body.name }, trx)) {
            throw conflict(NAME_TAKEN, 'Choose another name', 'name');
          }
          const created = await s.registries.insert({ ...columns(body), environmentId: resource.id }, trx);
          if (created.isDefault) await s.registries.unsetOtherDefaults(resource.id, created.id, trx);
          return created;
        });
        ctx.state.audit = { resourceType: 'registries', resourceId: row.id, details: { fields: Object.keys(body) } };
        return toRegistry(row);
      },
    }),

    route({
      method: 'GET', path: '/api/registries/{id}', operationId: 'getRegistry', tag: 'registries', access: 'viewer',
      load, response: registrySchemas.read, summary: 'One registry connection, credential-free',
      handler: async (_ctx, { resource }) => toRegistry(resource),
    }),

    route<Partial<RegistryInput>, unknown, RegistryRow>({
      method: 'PATCH', path: '/api/registries/{id}', operationId: 'updateRegistry', tag: 'registries', access: 'operator',
      load, body: registrySchemas.update, readOnly: registrySchemas.readOnly, response: registrySchemas.read, errors: [409],
      summary: 'Change a registry connection; a null token or password removes it',
      async handler(ctx, { resource, body }) {
        assertPattern(body.autoLinkPattern);
        if (body.registryUrl !== undefined) await s.outgoing.validate(body.registryUrl, 'registryUrl');
        const row = await s.transaction(async (trx) => {
          if (body.name !== undefined && body.name !== resource.name
            && await s.registries.findOne({ environmentId: resource.environmentId, name: body.name }, trx)) {
            throw conflict(NAME_TAKEN, 'Choose another name', 'name');
          }
          const updated = await s.registries.update(resource.id, { ...columns(body), generation: resource.generation + 1 }, trx);
          if (body.isDefault) await s.registries.unsetOtherDefaults(resource.environmentId, resource.id, trx);
          return updated!;
        });
        ctx.state.audit = { environmentId: resource.environmentId, details: { fields: Object.keys(body) } };
        return toRegistry(row);
      },
    }),

    route<unknown, unknown, RegistryRow>({
      method: 'DELETE', path: '/api/registries/{id}', operationId: 'deleteRegistry', tag: 'registries', access: 'operator',
      load, status: 204, errors: [409], summary: 'Delete a registry connection; refused while container images use it',
      async handler(ctx, { resource }) {
        const images = await s.registries.imageCount(resource.id);
        if (images > 0) {
          throw conflict(`${images} container image(s) still use this registry connection`,
            'Delete those images or point them at another registry first');
        }
        await s.registries.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name } };
        return undefined;
      },
    }),
  ];
}
