import type { FoundReference, KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { enumOf, nonEmpty, nullable, object, str, type Schema } from './schema.js';

const endpoint: Schema = object({ kind: enumOf('Service', 'Database', 'ExternalEntity'), name: name('Its metadata.name') }, ['kind', 'name']);

/** Declared in manifests and validated; nothing stores or applies it yet. */
export const connection: KindDescriptor = {
  kind: 'Connection',
  namespaced: true,
  description: 'A declared link between two services, databases or external entities (for the map).',
  manifest: {
    spec: object({ from: endpoint, to: endpoint, protocol: nonEmpty(50), description: nullable(str({ maxLength: 2000 })) }, ['from', 'to']),
    // Each end names its own kind.
    referencesIn: (spec): FoundReference[] => (['from', 'to'] as const)
      .filter((end) => typeof spec[end]?.kind === 'string' && typeof spec[end]?.name === 'string')
      .map((end) => ({ kind: spec[end].kind, name: spec[end].name, path: ['spec', end, 'name'] })),
  },
};
