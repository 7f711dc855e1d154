import type { Services } from '../../controller/services.js';
import { toServiceAccount, type ServiceAccountRow } from '../../controller/store/repositories/service-accounts.js';
import { clearAuthCache } from '../../controller/auth/authenticate-token.js';
import { route } from '../http/route.js';
import { bool, enumOf, int, listOf, nonEmpty, nullable, paginationQuery, resourceSchemas, str, timestamp, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';

export const serviceAccountSchemas = resourceSchemas({
  writable: {
    name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
    role: enumOf('viewer', 'operator', 'admin'),
    description: nullable(str({ maxLength: 2000 })),
    disabled: { ...bool, default: false },
  },
  readOnly: { id: uuid, tokenCount: int(0), createdAt: timestamp, updatedAt: timestamp },
  required: ['name', 'role'],
});

type AccountInput = Pick<ServiceAccountRow, 'name' | 'role' | 'description' | 'disabled'>;

export default function serviceAccountRoutes(s: Services) {
  const load = rowOf(s.serviceAccounts, 'Service account');
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/admin/service-accounts', operationId: 'listServiceAccounts', tag: 'service-accounts',
      access: 'admin', summary: 'Service accounts with their active token count', query: paginationQuery,
      response: listOf(serviceAccountSchemas.read),
      async handler(_ctx, { query }) {
        const page = await s.serviceAccounts.list({}, query);
        return { ...page, items: page.items.map(toServiceAccount) };
      },
    }),

    route<AccountInput>({
      method: 'POST', path: '/api/admin/service-accounts', operationId: 'createServiceAccount', tag: 'service-accounts',
      access: 'admin', summary: 'Create a service account (it owns API tokens, never logs in)',
      body: serviceAccountSchemas.create, readOnly: serviceAccountSchemas.readOnly, status: 201,
      response: serviceAccountSchemas.read, errors: [409],
      async handler(_ctx, { body }) {
        const row = await s.serviceAccounts.insert(body);
        return toServiceAccount({ ...row, tokenCount: 0 });
      },
    }),

    route({
      method: 'GET', path: '/api/admin/service-accounts/{id}', operationId: 'getServiceAccount', tag: 'service-accounts',
      access: 'admin', summary: 'One service account', load, response: serviceAccountSchemas.read,
      handler: async (_ctx, { resource }) => toServiceAccount(resource),
    }),

    route<Partial<AccountInput>, unknown, ServiceAccountRow>({
      method: 'PATCH', path: '/api/admin/service-accounts/{id}', operationId: 'updateServiceAccount', tag: 'service-accounts',
      access: 'admin', summary: 'Change a service account; disabling it makes its tokens answer 401',
      load, body: serviceAccountSchemas.update, readOnly: serviceAccountSchemas.readOnly,
      response: serviceAccountSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await s.serviceAccounts.update(resource.id, body);
        if (body.disabled || body.role) clearAuthCache();
        ctx.state.audit = { details: { fields: Object.keys(body) } };
        return toServiceAccount((await s.serviceAccounts.findById(resource.id))!);
      },
    }),

    route<unknown, unknown, ServiceAccountRow>({
      method: 'DELETE', path: '/api/admin/service-accounts/{id}', operationId: 'deleteServiceAccount', tag: 'service-accounts',
      access: 'admin', summary: 'Delete a service account and all its tokens', load, status: 204,
      async handler(ctx, { resource }) {
        await s.serviceAccounts.delete(resource.id);
        clearAuthCache();
        ctx.state.audit = { details: { name: resource.name, tokenCount: Number(resource.tokenCount) } };
        return undefined;
      },
    }),
  ];
}
