import { description, keySchema, READ_ONLY_META, secretRead } from './config-fields.js';
import type { KindDescriptor } from './kind.js';
import { KEY_PATTERN, valueFrom } from './manifest-fields.js';
import { nullable, object, str } from './schema.js';

const value = { ...str({ minLength: 1, maxLength: 65536 }), writeOnly: true };

export const secret: KindDescriptor = {
  kind: 'Secret',
  namespaced: true,
  namePattern: KEY_PATTERN,
  description: 'A secret value; metadata.name is its key. The value is read at apply time from valueFrom '
    + '(another Secret of the environment, a SOPS file of a Git source, or in the watched folder an environment variable or a file of the controller); a plain value is rejected.',
  table: 'secrets',
  nameColumn: 'key',
  versioned: false,
  schemas: {
    create: object({ key: keySchema, value, description }, ['key', 'value']),
    update: object({ value, description }, [], { minProperties: 1 }),
    read: secretRead,
    readOnly: [...READ_ONLY_META, 'hasValue'],
    updateReadOnly: [...READ_ONLY_META, 'hasValue', 'key'],
  },
  secrets: [{ field: 'value', column: 'valueSealed', valueFrom: ['valueFrom'] }],
  api: { path: 'secrets', tagDescription: 'Secret values: write-only, revealed only on purpose' },
  manifest: {
    spec: object({ valueFrom, description: nullable(str({ maxLength: 2000 })) }, ['valueFrom']),
    columns: ['description'],
  },
};
