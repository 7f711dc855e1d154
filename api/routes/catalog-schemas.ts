import { TYPE_NAME_PATTERN } from '../../controller/catalog/validators.js';
import { arrayOf, bool, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid } from '../http/schema.js';

/**
 * Request and response schemas of image digests and service types. Services, deployments and
 * images are kinds: their schemas are in controller/kinds/.
 */
const argv = (maxItems = 64) => arrayOf(str({ maxLength: 4096 }), { minItems: 1, maxItems });

export const digestSchema = object({
  id: uuid, containerImageId: uuid, tag: str(), digest: str(), firstSeenAt: timestamp, lastSeenAt: timestamp,
});

export const typeCommandSchema = object({
  name: str({ pattern: '^[a-z0-9][a-z0-9_.-]{0,62}$' }),
  description: str({ maxLength: 500 }),
  command: argv(),
  target: { type: 'string', enum: ['container', 'host'], default: 'container' },
}, ['name', 'command']);

export const commandTypeSchemas = (withPort: boolean) => resourceSchemas({
  writable: {
    name: str({ pattern: TYPE_NAME_PATTERN }),
    description: nullable(str({ maxLength: 2000 })),
    defaultImage: nullable(nonEmpty(255)),
    ...(withPort && { defaultPort: nullable(int(1, 65535)) }),
    commands: arrayOf(typeCommandSchema, { maxItems: 100, default: [] }),
  },
  readOnly: { id: uuid, builtin: bool, createdAt: timestamp, updatedAt: timestamp },
  required: ['name'],
});
