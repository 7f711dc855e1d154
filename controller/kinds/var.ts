import { description, keySchema, READ_ONLY_META, varRead } from './config-fields.js';
import type { KindDescriptor } from './kind.js';
import { KEY_PATTERN } from './manifest-fields.js';
import { nullable, object, str } from './schema.js';

const value = str({ maxLength: 65536 });

export const variable: KindDescriptor = {
  kind: 'Var',
  namespaced: true,
  namePattern: KEY_PATTERN,
  description: 'A plain configuration value; metadata.name is its key.',
  table: 'vars',
  nameColumn: 'key',
  versioned: false,
  schemas: {
    create: object({ key: keySchema, value, description }, ['key', 'value']),
    update: object({ value, description }, [], { minProperties: 1 }),
    read: varRead,
    readOnly: READ_ONLY_META,
    updateReadOnly: [...READ_ONLY_META, 'key'],
  },
  api: { path: 'vars', tagDescription: 'Plain configuration variables' },
  manifest: {
    spec: object({ value: str({ maxLength: 65536 }), description: nullable(str({ maxLength: 2000 })) }, ['value']),
    columns: ['value', 'description'],
  },
};
