import { NOTIFICATION_CODES } from '../notifications/types.js';
import type { KindDescriptor } from './kind.js';
import { secretRef } from './manifest-fields.js';
import {
  arrayOf, bool, enumOf, int, nonEmpty, nullable, nullableTimestamp, object, resourceSchemas, str, stringMap, timestamp, uuid,
  type ResourceSchemas, type Schema,
} from './schema.js';

/** Shared with the admin's outgoing webhooks (api/routes/webhooks-outgoing.ts), which are not a kind. */
export const webhookUrl = str({ format: 'uri', pattern: '^https?://', maxLength: 2048 });
export const webhookEventTypes = arrayOf(enumOf(...NOTIFICATION_CODES), { uniqueItems: true, maxItems: 100 });
export const webhookSecret = nullable(str({ minLength: 1, maxLength: 1024 }));
/**
 * Custom header values are write-only (stored sealed, controller/delivery/sealed-headers.ts):
 * writes take strings, a PATCH keeps the names it leaves out and removes those set to null,
 * reads show each name as `{set: true}`.
 */
export const webhookHeadersPatch: Schema = {
  type: 'object', additionalProperties: nullable(str({ maxLength: 65536 })), maxProperties: 50,
  description: 'Headers to set (a string) or remove (null); headers not named stay as they are',
};
export const webhookHeadersRead: Schema = {
  type: 'object', additionalProperties: object({ set: { type: 'boolean', enum: [true] } }, ['set']),
  description: 'The custom headers by name; their values are write-only',
};
export const withWriteOnlyHeaders = (s: ResourceSchemas): ResourceSchemas => ({
  ...s,
  update: { ...s.update, properties: { ...(s.update.properties as Schema), headers: webhookHeadersPatch } },
  read: { ...s.read, properties: { ...(s.read.properties as Schema), headers: webhookHeadersRead } },
});
export const webhookHealth = {
  id: uuid, hasSecret: bool, failureCount: int(0), failed: bool, lastDeliveredAt: nullableTimestamp,
  lastFailedAt: nullableTimestamp, createdAt: timestamp, updatedAt: timestamp,
};

export const webhookSubscription: KindDescriptor = {
  kind: 'WebhookSubscription',
  namespaced: true,
  description: 'An outgoing webhook for events of the environment (as POST /api/environments/{envId}/webhooks; '
    + 'metadata.name is its name). The signing secret is read at apply time from valueFrom, never written in the file.',
  table: 'webhook_subscriptions',
  versioned: false,
  schemas: withWriteOnlyHeaders(resourceSchemas({
    writable: {
      name: nonEmpty(200), url: webhookUrl, secret: webhookSecret, headers: stringMap(50),
      enabled: { type: 'boolean', default: true }, eventTypes: webhookEventTypes,
    },
    readOnly: { ...webhookHealth, environmentId: uuid, source: { type: 'object' } },
    required: ['name', 'url'],
    writeOnly: ['secret'],
  })),
  jsonColumns: ['headers', 'eventTypes'],
  secrets: [{ field: 'secret', column: 'secretEnc' }],
  sealedMaps: ['headers'],
  manifest: {
    spec: object({
      url: str({ format: 'uri', pattern: '^https?://', minLength: 1, maxLength: 2048 }),
      secret: secretRef('Signing secret'),
      headers: stringMap(50),
      enabled: bool,
      eventTypes: arrayOf(enumOf(...NOTIFICATION_CODES), { uniqueItems: true, maxItems: 100 }),
    }, ['url']),
    columns: ['url', 'headers', 'enabled', 'eventTypes'],
  },
};
