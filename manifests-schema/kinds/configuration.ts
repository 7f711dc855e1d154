/** ConfigFile, ConfigFragment, Var, Secret and WebhookSubscription. */
import { arrayOf, bool, enumOf, nullable, object, str, stringMap } from '../../api/http/schema.js';
import { NOTIFICATION_CODES } from '../../controller/notifications/types.js';
import { KEY_PATTERN, secretRef, valueFrom, type KindDefinition } from './common.js';

export const configFile: KindDefinition = {
  kind: 'ConfigFile', namespaced: true,
  description: 'A file rendered onto servers for the services that attach it (Service spec.configFiles). '
    + 'Its content may include fragments with ${fragment:NAME} and vars/secrets with ${KEY}.',
  spec: object({ content: str({ maxLength: 1048576 }), description: nullable(str({ maxLength: 2000 })) }, ['content']),
};

export const configFragment: KindDefinition = {
  kind: 'ConfigFragment', namespaced: true,
  description: 'A reusable piece of configuration included by config files.',
  spec: object({ content: str({ maxLength: 1048576 }), description: nullable(str({ maxLength: 2000 })) }, ['content']),
};

export const variable: KindDefinition = {
  kind: 'Var', namespaced: true, namePattern: KEY_PATTERN,
  description: 'A plain configuration value; metadata.name is its key.',
  spec: object({ value: str({ maxLength: 65536 }), description: nullable(str({ maxLength: 2000 })) }, ['value']),
};

export const secret: KindDefinition = {
  kind: 'Secret', namespaced: true, namePattern: KEY_PATTERN,
  description: 'A secret value; metadata.name is its key. The value is read at apply time from valueFrom '
    + '(an environment variable of the controller, or a file); a plain value is rejected.',
  spec: object({ valueFrom, description: nullable(str({ maxLength: 2000 })) }, ['valueFrom']),
};

export const webhookSubscription: KindDefinition = {
  kind: 'WebhookSubscription', namespaced: true,
  description: 'An outgoing webhook for events of the environment (as POST /api/environments/{envId}/webhooks; '
    + 'metadata.name is its name). The signing secret is read at apply time from valueFrom, never written in the file.',
  spec: object({
    url: str({ format: 'uri', pattern: '^https?://', minLength: 1, maxLength: 2048 }),
    secret: secretRef('Signing secret'),
    headers: stringMap(50),
    enabled: bool,
    eventTypes: arrayOf(enumOf(...NOTIFICATION_CODES), { uniqueItems: true, maxItems: 100 }),
  }, ['url']),
};
