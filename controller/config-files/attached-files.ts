// The config files attached to one service, rendered: what a deployment's container must see at
// each target path. The desired container spec carries their hashes; deploys write the bytes.
import type { Services } from '../services.js';
import type { ConfigFileRow } from '../store/repositories/config-files.js';
import type { ConfigAttachmentRow } from '../store/repositories/config-attachments.js';
import { sensitiveFiles } from './sync-targets.js';
import { fileModeFor } from './target-path.js';

export interface RenderedAttachment {
  attachmentId: string;
  configFileName: string;
  targetPath: string;
  mode: number;
  content: Buffer;
}

/** Throws a VALIDATION_ERROR naming the keys when a file has an unresolved placeholder. */
/** `read`: the service's attachments when the caller read them already (a batch of looks). */
export async function renderAttachedFiles(s: Pick<Services, 'configStore'>, serviceId: string, environmentId: string,
  read?: ConfigAttachmentRow[]): Promise<RenderedAttachment[]> {
  const attachments = read ?? await s.configStore.attachments.forServices([serviceId]);
  if (!attachments.length) return [];
  const files = (await Promise.all([...new Set(attachments.map((a) => a.configFileId))].map((id) => s.configStore.files.findById(id))))
    .filter((f): f is ConfigFileRow => !!f);
  const [ctx, sensitive] = await Promise.all([s.configStore.catalog.renderContext(environmentId, true), sensitiveFiles(s.configStore.reads, files)]);
  return attachments.flatMap((a) => {
    const file = files.find((f) => f.id === a.configFileId);
    if (!file) return [];
    return [{
      attachmentId: a.id, configFileName: file.name, targetPath: a.targetPath,
      mode: fileModeFor(a.targetPath, a.mode, sensitive.has(file.id)), content: s.configStore.catalog.renderForSync(file, ctx),
    }];
  });
}
