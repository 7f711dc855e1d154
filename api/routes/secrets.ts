import type { Services } from '../../controller/services.js';
import { forbiddenScope, validationError } from '../../controller/errors/app-error.js';
import { toSecret, type SecretRow } from '../../controller/store/repositories/secrets.js';
import { route } from '../http/route.js';
import { listOf, object, paginationQuery, str, uuid } from '../http/schema.js';
import { secret } from '../../controller/kinds/secret.js';
import { environmentOf, rowOf } from './loaders.js';

const { create, update, read: secretRead, readOnly, updateReadOnly } = secret.schemas!;

/** Secrets: the value is write-only (sealed at rest); reveal is admin-only and per-environment opt-in. */
export default function secretRoutes(s: Services) {
  const cs = s.configStore;
  const load = rowOf(cs.secrets, 'Secret');
  const withUsage = async (rows: SecretRow[], environmentId: string) => {
    const { keys } = await cs.catalog.usage(environmentId);
    return rows.map((r) => ({ ...toSecret(r), usage: keys.get(r.key) ?? { configFiles: [], services: [] } }));
  };
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/secrets', operationId: 'listSecrets', tag: 'secrets', access: 'viewer',
      summary: 'Secret keys, metadata and usage (never values)', load: environmentOf(s), query: paginationQuery,
      response: listOf(secretRead),
      async handler(_ctx, { resource, query }) {
        const page = await cs.secrets.list({ environmentId: resource.id }, query, 'key');
        return { ...page, items: await withUsage(page.items, resource.id) };
      },
    }),

    route<{ key: string; value: string; description?: string | null }>({
      method: 'POST', path: '/api/environments/{envId}/secrets', operationId: 'createSecret', tag: 'secrets', access: 'operator',
      summary: 'Create a secret; the value is sealed and never returned', load: environmentOf(s),
      body: create, readOnly,
      status: 201, response: secretRead, errors: [409],
      async handler(ctx, { resource, body }) {
        const row = await cs.secrets.insert({
          environmentId: resource.id, key: body.key, valueSealed: s.secretBox.seal(body.value), description: body.description ?? null,
        });
        ctx.state.audit = { details: { key: row.key } };
        return (await withUsage([row], resource.id))[0];
      },
    }),

    route({
      method: 'GET', path: '/api/secrets/{id}', operationId: 'getSecret', tag: 'secrets', access: 'viewer',
      summary: 'One secret: key, metadata and usage', load, response: secretRead,
      handler: async (_ctx, { resource }) => (await withUsage([resource], resource.environmentId))[0],
    }),

    route<{ value?: string; description?: string | null }, unknown, SecretRow>({
      method: 'PATCH', path: '/api/secrets/{id}', operationId: 'updateSecret', tag: 'secrets', access: 'operator',
      summary: 'Replace the value or the description (the key is fixed)', load,
      body: update, readOnly: updateReadOnly,
      response: secretRead,
      async handler(ctx, { resource, body }) {
        const row = await s.transaction(async (trx) => {
          if (body.value !== undefined) await cs.secrets.remember(resource, trx);
          return cs.secrets.update(resource.id, {
            ...(body.value !== undefined && { valueSealed: s.secretBox.seal(body.value) }),
            ...(body.description !== undefined && { description: body.description }),
          }, trx);
        });
        ctx.state.audit = { details: { key: resource.key, fields: Object.keys(body) } };
        return (await withUsage([row!], resource.environmentId))[0];
      },
    }),

    route<unknown, unknown, SecretRow>({
      method: 'DELETE', path: '/api/secrets/{id}', operationId: 'deleteSecret', tag: 'secrets', access: 'operator',
      summary: 'Delete a secret', load, status: 204,
      async handler(ctx, { resource }) {
        await s.transaction(async (trx) => {
          await cs.secrets.remember(resource, trx);
          await cs.secrets.delete(resource.id, trx);
        });
        ctx.state.audit = { environmentId: resource.environmentId, details: { key: resource.key } };
        return undefined;
      },
    }),

    route<unknown, unknown, SecretRow>({
      method: 'POST', path: '/api/secrets/{id}/reveal', operationId: 'revealSecret', tag: 'secrets', access: 'admin',
      summary: "The secret's value; admin only, and only while the environment's configuration.allowSecretReveal is true",
      load, response: object({ id: uuid, key: str(), value: str() }), errors: [403],
      async handler(ctx, { resource }) {
        // a replayable answer would be stored by the idempotency middleware: the value must not be
        if (ctx.get('Idempotency-Key')) throw validationError('Reveal does not take an Idempotency-Key', 'Idempotency-Key');
        const conf = await s.settings.get<{ allowSecretReveal: boolean }>(resource.environmentId, 'configuration');
        if (!conf.allowSecretReveal) {
          throw forbiddenScope('Secret reveal is turned off for this environment',
            'An admin can set configuration.allowSecretReveal to true in the environment settings');
        }
        ctx.set('Cache-Control', 'no-store');
        ctx.state.audit = { environmentId: resource.environmentId, details: { key: resource.key } };
        return { id: resource.id, key: resource.key, value: s.secretBox.open(resource.valueSealed) };
      },
    }),
  ];
}
