import type { KindDescriptor } from './kind.js';
import { nonEmpty, nullable, object, resourceSchemas, str, stringMap, timestamp, uuid } from './schema.js';

/** The fields of the manifest spec, which the API writes too (plus the name). */
const fields = {
  type: nonEmpty(50, { description: 'What it is: saas, managed-database, api…' }),
  url: nullable(str({ maxLength: 2048 })),
  description: nullable(str({ maxLength: 2000 })),
  attributes: stringMap(50),
};

/** A plain kind: the generic CRUD routes serve it (see docs/kinds.md, "Adding a kind"). */
export const externalEntity: KindDescriptor = {
  kind: 'ExternalEntity',
  namespaced: true,
  description: 'Something Stevedore does not run but services talk to (a SaaS API, a managed database).',
  table: 'external_entities',
  versioned: false,
  schemas: resourceSchemas({
    writable: { name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), ...fields },
    readOnly: { id: uuid, environmentId: uuid, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp },
    required: ['name', 'type'],
  }),
  jsonColumns: ['attributes'],
  manifest: {
    spec: object(fields, ['type']),
    columns: ['type', 'url', 'description', 'attributes'],
    defaults: { url: null, description: null, attributes: {} },
  },
  api: { path: 'external-entities' },
};
