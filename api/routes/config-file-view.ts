import { createHash } from 'node:crypto';
import { referencesOf } from '../../controller/config-files/placeholders.js';
import type { ConfigFileRevisionRow, ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { arrayOf, enumOf, int, nullable, object, str, timestamp, uuid } from '../http/schema.js';

const bytesOf = (r: { content: string | null; data: Buffer | null }) => r.data ?? Buffer.from(r.content ?? '', 'utf8');

/** A config file as reads show it: templates with placeholders intact, assets by size and hash. */
export function toConfigFile(f: ConfigFileRow, attachments?: unknown[]) {
  const bytes = bytesOf(f);
  return {
    id: f.id, environmentId: f.environmentId, name: f.name, kind: f.kind,
    content: f.kind === 'template' ? f.content : null,
    contentType: f.contentType, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'),
    description: f.description, revision: f.revision, generation: f.generation,
    references: f.kind === 'template' ? referencesOf(f.content ?? '') : { keys: [], fragments: [] },
    ...(attachments && { attachments }),
    source: f.source, createdAt: f.createdAt, updatedAt: f.updatedAt,
  };
}

export function toRevision(r: ConfigFileRevisionRow) {
  const bytes = bytesOf(r);
  return {
    revision: r.revision, content: r.data ? null : r.content, contentType: r.contentType, size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'), actorName: r.actorName, reason: r.reason, createdAt: r.createdAt,
  };
}

export const attachmentRead = object({
  id: uuid, configFileId: uuid, serviceId: uuid, environmentId: uuid, targetPath: str(), mode: nullable(str()),
  syncState: arrayOf(object({ serverId: uuid, contentHash: str(), targetPath: str(), syncedAt: timestamp })),
  createdAt: timestamp, updatedAt: timestamp,
});

export const configFileRead = object({
  id: uuid, environmentId: uuid, name: str(), kind: enumOf('template', 'asset'), content: nullable(str()),
  contentType: nullable(str()), size: int(0), sha256: str(), description: nullable(str()), revision: int(1),
  generation: int(1), references: object({ keys: arrayOf(str()), fragments: arrayOf(str()) }),
  attachments: arrayOf(attachmentRead), source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
});

export const revisionRead = object({
  revision: int(1), content: nullable(str()), contentType: nullable(str()), size: int(0), sha256: str(),
  actorName: nullable(str()), reason: str(), createdAt: timestamp,
});

export const CONFIG_FILE_READ_ONLY = ['id', 'environmentId', 'kind', 'contentType', 'size', 'sha256', 'revision', 'generation',
  'references', 'attachments', 'source', 'createdAt', 'updatedAt'];
