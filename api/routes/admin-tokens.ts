import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import { generateApiToken, sha256Hex, tokenPrefixOf } from '../../controller/crypto/api-token.js';
import { toApiToken, type ApiTokenRow } from '../../controller/store/repositories/api-tokens.js';
import { clearAuthCache } from '../../controller/auth/authenticate-token.js';
import type { Role } from '../http/types.js';
import { route, result } from '../http/route.js';
import { arrayOf, enumOf, listOf, nonEmpty, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';
import type { IdentityRef, Reach } from '../../controller/auth/policy.js';

const role = enumOf('viewer', 'operator', 'admin');

const tokenRead = object({
  id: uuid, name: str(), tokenPrefix: str(), ownerUserId: nullable(uuid), ownerServiceAccountId: nullable(uuid),
  role: nullable(role), environmentIds: { ...arrayOf(uuid), nullable: true },
  expiresAt: nullableTimestamp, revokedAt: nullableTimestamp, lastUsedAt: nullableTimestamp, createdAt: timestamp,
});

/** A token's owner, as the identity it acts as. */
const ownerOf = (t: { ownerUserId?: string | null; ownerServiceAccountId?: string | null }): IdentityRef =>
  t.ownerServiceAccountId ? { type: 'service_account', id: t.ownerServiceAccountId } : { type: 'user', id: t.ownerUserId ?? '' };

/**
 * Where a token reaches: its environments, or (unlimited) the whole installation. Its creator, and
 * whoever reads or revokes it, must hold the admin role there (policy.ts): a lowered admin handles
 * only their own tokens limited to environments where they are still admin.
 */
const reachOf = (t: { environmentIds?: string[] | null }): Reach => t.environmentIds ?? 'installation';

interface TokenInput {
  name: string; ownerUserId?: string; ownerServiceAccountId?: string; role?: Role;
  environmentIds?: string[]; expiresAt?: string;
}

export default function tokenRoutes(s: Services) {
  const load = rowOf(s.apiTokens, 'API token');

  async function revoke(row: ApiTokenRow): Promise<ApiTokenRow> {
    clearAuthCache();
    if (row.revokedAt) return row;
    return s.apiTokens.revoke(row.id);
  }

  return [
    route<TokenInput>({
      method: 'POST', path: '/api/admin/tokens', operationId: 'createApiToken', tag: 'tokens', access: 'admin', scope: 'tokens:manage',
      summary: 'Create an API token for a user or a service account; the token value is in this answer only',
      actsIn: (_ctx, { body }) => reachOf(body), identity: (_ctx, { body }) => ownerOf(body),
      body: object({
        name: nonEmpty(100),
        ownerUserId: uuid,
        ownerServiceAccountId: uuid,
        role: { ...role, description: 'Role cap: the token acts with min(owner role, this role)' },
        environmentIds: arrayOf(uuid, { uniqueItems: true, minItems: 1, maxItems: 200 }),
        expiresAt: timestamp,
      }, ['name']),
      readOnly: ['id', 'token', 'tokenPrefix', 'revokedAt', 'lastUsedAt', 'createdAt'],
      status: 201, response: object({ ...(tokenRead.properties as object), token: str({ description: 'Shown once' }) }),
      async handler(ctx, { body }) {
        if ((body.ownerUserId === undefined) === (body.ownerServiceAccountId === undefined)) {
          throw validationError('Give exactly one of ownerUserId and ownerServiceAccountId', 'ownerUserId');
        }
        if (body.ownerUserId && !(await s.users.findById(body.ownerUserId))) {
          throw validationError('No user has this id', 'ownerUserId');
        }
        if (body.ownerServiceAccountId && !(await s.serviceAccounts.findById(body.ownerServiceAccountId))) {
          throw validationError('No service account has this id', 'ownerServiceAccountId');
        }
        if (body.environmentIds) {
          const found = await s.environments.existingIds(body.environmentIds);
          const missing = body.environmentIds.find((id) => !found.includes(id));
          if (missing) throw validationError(`No environment has the id ${missing}`, 'environmentIds');
        }
        if (body.expiresAt !== undefined && Date.parse(body.expiresAt) <= Date.now()) {
          throw validationError('expiresAt must be in the future', 'expiresAt');
        }
        const token = generateApiToken();
        const row = await s.apiTokens.insert({
          name: body.name, tokenHash: sha256Hex(token), tokenPrefix: tokenPrefixOf(token),
          ownerUserId: body.ownerUserId ?? null, ownerServiceAccountId: body.ownerServiceAccountId ?? null,
          role: body.role ?? null, environmentIds: body.environmentIds ?? null,
          expiresAt: body.expiresAt ? new Date(body.expiresAt) : null, createdBy: ctx.state.actor!.id,
        });
        ctx.state.audit = {
          resourceType: 'tokens', resourceId: row.id,
          details: { fields: Object.keys(body), role: row.role, environmentLimited: !!row.environmentIds },
        };
        return { ...toApiToken(row), token };
      },
    }),

    route<unknown, { limit: number; offset: number; ownerUserId?: string; ownerServiceAccountId?: string }>({
      method: 'GET', path: '/api/admin/tokens', operationId: 'listApiTokens', tag: 'tokens', access: 'admin', scope: 'tokens:manage',
      summary: 'API token metadata (tokenPrefix only), optionally of one owner',
      // one's own tokens: wherever one is admin; everyone's: an unrestricted admin
      actsIn: () => [], identity: (_ctx, { query }) => (query.ownerUserId ? { type: 'user', id: query.ownerUserId } : query.ownerServiceAccountId ? { type: 'service_account', id: query.ownerServiceAccountId } : 'anyone'),
      query: { ...paginationQuery, ownerUserId: uuid, ownerServiceAccountId: uuid }, response: listOf(tokenRead),
      async handler(_ctx, { query }) {
        const where: Partial<ApiTokenRow> = {};
        if (query.ownerUserId) where.ownerUserId = query.ownerUserId;
        if (query.ownerServiceAccountId) where.ownerServiceAccountId = query.ownerServiceAccountId;
        const page = await s.apiTokens.list(where, query);
        return { ...page, items: page.items.map(toApiToken) };
      },
    }),

    route({
      method: 'GET', path: '/api/admin/tokens/{id}', operationId: 'getApiToken', tag: 'tokens', access: 'admin', scope: 'tokens:manage',
      summary: 'One API token\'s metadata', load, response: tokenRead,
      actsIn: (_ctx, { resource }) => reachOf(resource), identity: (_ctx, { resource }) => ownerOf(resource),
      handler: async (_ctx, { resource }) => toApiToken(resource),
    }),

    route<unknown, unknown, ApiTokenRow>({
      method: 'POST', path: '/api/admin/tokens/{id}/revoke', operationId: 'revokeApiToken', tag: 'tokens', access: 'admin',
      scope: 'tokens:manage', summary: 'Revoke an API token: it answers 401 from now on; revoking twice is harmless',
      load, response: tokenRead,
      actsIn: (_ctx, { resource }) => reachOf(resource), identity: (_ctx, { resource }) => ownerOf(resource),
      handler: async (_ctx, { resource }) => toApiToken(await revoke(resource)),
    }),

    route<unknown, unknown, ApiTokenRow>({
      method: 'DELETE', path: '/api/admin/tokens/{id}', operationId: 'deleteApiToken', tag: 'tokens', access: 'admin',
      scope: 'tokens:manage', summary: 'Revoke an API token (the record stays, marked revoked)', load, status: 204,
      actsIn: (_ctx, { resource }) => reachOf(resource), identity: (_ctx, { resource }) => ownerOf(resource),
      async handler(_ctx, { resource }) {
        await revoke(resource);
        return result(204);
      },
    }),
  ];
}
