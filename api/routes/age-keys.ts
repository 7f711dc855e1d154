import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { recipientOf } from '../../controller/manifests/sops/age-identity.js';
import { route } from '../http/route.js';
import { bool, nullable, nullableTimestamp, object, str } from '../http/schema.js';
import { environmentOf } from './loaders.js';

const ageKeyRead = object({
  hasIdentity: bool,
  recipient: nullable(str({ description: 'The public key (age1…) to encrypt this environment\'s SOPS files to' })),
  updatedAt: nullableTimestamp,
});

/** The environment's age identity: what decrypts the SOPS files of its Git source (write-only, sealed). */
export default function ageKeyRoutes(s: Services) {
  const env = environmentOf(s);
  const view = (k: { recipient: string; updatedAt: Date } | undefined) => ({ hasIdentity: !!k, recipient: k?.recipient ?? null, updatedAt: k?.updatedAt ?? null });
  return [
    route({
      method: 'GET', path: '/api/environments/{envId}/age-key', operationId: 'getAgeKey', tag: 'manifests', access: 'viewer',
      load: env, response: ageKeyRead, summary: 'Whether the environment has an age identity, and its recipient; the identity is never shown',
      handler: async (_ctx, { resource }) => view(await s.gitSources.ageKeyOf(resource.id)),
    }),
    route<{ identity: string }>({
      method: 'PUT', path: '/api/environments/{envId}/age-key', operationId: 'putAgeKey', tag: 'manifests', access: 'admin',
      load: env, response: ageKeyRead,
      body: object({ identity: { ...str({ minLength: 1, maxLength: 4096, description: 'An age identity (AGE-SECRET-KEY-1…), as age-keygen writes it' }), writeOnly: true } }, ['identity']),
      summary: 'Set the age identity that decrypts the SOPS files (*.sops.yaml) of the environment\'s Git source (write-only, sealed)',
      async handler(ctx, { resource, body }) {
        const identity = body.identity.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#')) ?? '';
        const recipient = await recipientOf(identity);
        if (!recipient) throw validationError('identity must be an age identity (AGE-SECRET-KEY-1…)', 'identity');
        await s.gitSources.saveAgeKey(resource.id, s.secretBox.seal(identity), recipient);
        ctx.state.audit = { environmentId: resource.id, details: { recipient } };
        return view(await s.gitSources.ageKeyOf(resource.id));
      },
    }),
    route({
      method: 'DELETE', path: '/api/environments/{envId}/age-key', operationId: 'deleteAgeKey', tag: 'manifests', access: 'admin',
      load: env, status: 204, errors: [404], summary: 'Remove the environment\'s age identity (its SOPS files then fail to apply)',
      async handler(_ctx, { resource }) {
        if (!(await s.gitSources.removeAgeKey(resource.id))) throw notFound('Age key');
        return undefined;
      },
    }),
  ];
}
