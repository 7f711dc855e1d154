import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { arrayOf, nullable, object, str } from './schema.js';

/** Declared in manifests and validated; nothing stores or applies it yet. */
export const serverCluster: KindDescriptor = {
  kind: 'ServerCluster',
  namespaced: true,
  description: 'A named group of servers.',
  references: [{ path: 'servers.*', kind: 'Server' }],
  manifest: {
    spec: object({
      description: nullable(str({ maxLength: 2000 })),
      servers: arrayOf(name('Name of a Server'), { minItems: 1, uniqueItems: true }),
    }, ['servers']),
  },
};
