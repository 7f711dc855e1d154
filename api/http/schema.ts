/**
 * The API's schema vocabulary. The field builders live in controller/kinds/schema.ts (the kind
 * descriptors and settings modules use them too); what only the HTTP layer needs is here.
 */
import { arrayOf, enumOf, int, INT32_MAX, object, str, type Schema } from '../../controller/kinds/schema.js';

export {
  arrayOf, bool, condition, enumOf, int, INT32_MAX, nonEmpty, nullable, nullableTimestamp, object, resourceSchemas, str, stringMap, timestamp, uuid,
} from '../../controller/kinds/schema.js';
export type { ResourceSchemas, Schema } from '../../controller/kinds/schema.js';

export const paginationQuery: Record<string, Schema> = {
  limit: { type: 'integer', minimum: 1, maximum: 200, default: 25 },
  offset: { type: 'integer', minimum: 0, maximum: INT32_MAX, default: 0 },
};

export function listOf(item: Schema): Schema {
  return object({ items: arrayOf(item), total: int(0), limit: int(1), offset: int(0) }, ['items', 'total', 'limit', 'offset']);
}

export const errorEnvelope: Schema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: enumOf('VALIDATION_ERROR', 'READONLY_FIELD', 'UNAUTHORIZED', 'FORBIDDEN_SCOPE', 'FORBIDDEN_ROLE', 'NOT_FOUND',
      'CONFLICT', 'IDEMPOTENCY_KEY_REUSED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL'),
    message: str(),
    field: str(),
    hint: str(),
    requestId: str(),
  },
  additionalProperties: true,
};
