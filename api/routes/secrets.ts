import type { Services } from '../../controller/services.js';
import { forbiddenScope, validationError } from '../../controller/errors/app-error.js';
import type { SecretRow } from '../../controller/store/repositories/secrets.js';
import { route } from '../http/route.js';
import { object, str, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';

/**
 * A secret's reveal: admin-only and per-environment opt-in. Its CRUD routes are the generic ones
 * (controller/kinds/secret.ts with `api`; the value write-only, sealed at rest, read as hasValue).
 */
export default function secretRoutes(s: Services) {
  const load = rowOf(s.configStore.secrets, 'Secret');
  return [
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
