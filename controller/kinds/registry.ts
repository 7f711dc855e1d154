import type { KindDescriptor } from './kind.js';
import { secretRef } from './manifest-fields.js';
import { bool, enumOf, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid, type Schema } from './schema.js';

const secret = nullable(str({ minLength: 1, maxLength: 8192 }));

const schemas = resourceSchemas({
  writable: {
    name: nonEmpty(100),
    type: enumOf('cloudhost', 'containerhub', 'generic'),
    registryUrl: str({ format: 'uri', minLength: 1, maxLength: 2048 }),
    repositoryPrefix: nullable(str({ maxLength: 500 })),
    token: secret,
    username: nullable(str({ maxLength: 500 })),
    password: secret,
    isDefault: { ...bool, default: false },
    refreshIntervalMinutes: int(5, 1440, { default: 60 }),
    autoLinkPattern: nullable(str({ maxLength: 500 })),
  },
  readOnly: {
    id: uuid, environmentId: uuid, hasToken: bool, hasPassword: bool, generation: int(1),
    status: { type: 'object' }, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['name', 'type', 'registryUrl'],
  writeOnly: ['token', 'password'],
});

// The API's fields, with the two credentials read from valueFrom instead of plain text.
const { name: _n, token: _t, password: _p, ...specFields } = (schemas.create.properties ?? {}) as Record<string, Schema>;

export const registry: KindDescriptor = {
  kind: 'Registry',
  namespaced: true,
  description: 'A registry connection. Credentials come from valueFrom, never from the file.',
  table: 'registry_connections',
  schemas,
  secrets: [{ field: 'token', column: 'tokenEnc' }, { field: 'password', column: 'passwordEnc' }],
  api: { path: 'registries', tagDescription: 'Container registries, their credentials and what they hold' },
  manifest: {
    spec: object({
      ...specFields,
      username: nullable(str({ maxLength: 500 })),
      token: secretRef('Registry token'),
      password: secretRef('Registry password'),
    }, ['type', 'registryUrl']),
    columns: Object.keys(specFields),
  },
};
