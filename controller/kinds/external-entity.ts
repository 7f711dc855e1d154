import type { KindDescriptor } from './kind.js';
import { nonEmpty, nullable, object, str, stringMap } from './schema.js';

/** Declared in manifests and validated; nothing stores or applies it yet. */
export const externalEntity: KindDescriptor = {
  kind: 'ExternalEntity',
  namespaced: true,
  description: 'Something Stevedore does not run but services talk to (a SaaS API, a managed database).',
  manifest: {
    spec: object({
      type: nonEmpty(50), url: str({ maxLength: 2048 }),
      description: nullable(str({ maxLength: 2000 })), attributes: stringMap(50),
    }, ['type']),
  },
};
