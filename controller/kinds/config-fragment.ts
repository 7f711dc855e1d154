import { description, fragmentName, namedRef, templateContent } from './config-fields.js';
import type { KindDescriptor } from './kind.js';
import { arrayOf, int, nullable, object, str, timestamp, uuid } from './schema.js';

const fragmentRead = object({
  id: uuid, environmentId: uuid, name: str(), content: str(), description: { type: 'string', nullable: true },
  generation: int(1), usedBy: arrayOf(namedRef), source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
  resync: object({ configFiles: arrayOf(namedRef), attachmentIds: arrayOf(uuid) }),
});

export const configFragment: KindDescriptor = {
  kind: 'ConfigFragment',
  namespaced: true,
  description: 'A reusable piece of configuration included by config files.',
  table: 'config_fragments',
  schemas: {
    create: object({ name: fragmentName, content: templateContent, description }, ['name', 'content']),
    update: object({ name: fragmentName, content: templateContent, description }, [], { minProperties: 1 }),
    read: fragmentRead,
    readOnly: ['id', 'environmentId', 'generation', 'usedBy', 'source', 'createdAt', 'updatedAt', 'resync'],
  },
  manifest: {
    spec: object({ content: str({ maxLength: 1048576 }), description: nullable(str({ maxLength: 2000 })) }, ['content']),
    columns: ['content', 'description'],
  },
};
