import { createHash } from 'node:crypto';
import { referencesOf } from '../../controller/config-files/placeholders.js';
import type { ConfigFileRevisionRow, ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { attachmentRead, configFile } from '../../controller/kinds/config-file.js';
import { int, nullable, object, str, timestamp } from '../http/schema.js';

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

export { attachmentRead };
export const configFileRead = configFile.schemas!.read;

export const revisionRead = object({
  revision: int(1), content: nullable(str()), contentType: nullable(str()), size: int(0), sha256: str(),
  actorName: nullable(str()), reason: str(), createdAt: timestamp,
});
