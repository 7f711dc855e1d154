import { description, fileName, templateContent } from './config-fields.js';
import type { FoundReference, KindDescriptor } from './kind.js';
import { arrayOf, condition, enumOf, int, nullable, object, str, timestamp, uuid } from './schema.js';

export const attachmentRead = object({
  id: uuid, configFileId: uuid, serviceId: uuid, environmentId: uuid, targetPath: str(), mode: nullable(str()),
  syncState: arrayOf(object({ serverId: uuid, contentHash: str(), targetPath: str(), syncedAt: timestamp })),
  generation: int(1), observedGeneration: nullable(int(0)), conditions: arrayOf(condition),
  createdAt: timestamp, updatedAt: timestamp,
});

const configFileRead = object({
  id: uuid, environmentId: uuid, name: str(), kind: enumOf('template', 'asset'), content: nullable(str()),
  contentType: nullable(str()), size: int(0), sha256: str(), description: nullable(str()), revision: int(1),
  generation: int(1), references: object({ keys: arrayOf(str()), fragments: arrayOf(str()) }),
  attachments: arrayOf(attachmentRead), source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
});

/** `${fragment:NAME}` includes (controller/config-files/placeholders.ts) of a config file's content. */
export const fragmentNames = (content: unknown): string[] =>
  typeof content === 'string' ? [...content.matchAll(/(?<!\$)\$\{fragment:([A-Za-z0-9][A-Za-z0-9._-]*)\}/g)].map((x) => x[1]) : [];

export const configFile: KindDescriptor = {
  kind: 'ConfigFile',
  namespaced: true,
  description: 'A file rendered onto servers for the services that attach it (Service spec.configFiles). '
    + 'Its content may include fragments with ${fragment:NAME} and vars/secrets with ${KEY}.',
  table: 'config_files',
  schemas: {
    create: object({ name: fileName, content: templateContent, description }, ['name', 'content']),
    update: object({ name: fileName, content: templateContent, description }, [], { minProperties: 1 }),
    read: configFileRead,
    readOnly: ['id', 'environmentId', 'kind', 'contentType', 'size', 'sha256', 'revision', 'generation',
      'references', 'attachments', 'source', 'createdAt', 'updatedAt'],
  },
  manifest: {
    spec: object({ content: str({ maxLength: 1048576 }), description: nullable(str({ maxLength: 2000 })) }, ['content']),
    columns: ['content', 'description'],
    referencesIn: (spec): FoundReference[] =>
      fragmentNames(spec.content).map((name) => ({ kind: 'ConfigFragment', name, path: ['spec', 'content'] })),
  },
};
