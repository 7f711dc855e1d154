import type { Services } from '../services.js';
import type { TargetResult } from './config-sync.js';
import { targetsOf } from './sync-targets.js';

/**
 * The config files attached to one service, synced to (or, dryRun, compared with) one server.
 * Deploys call it before the container starts, so the container never starts with stale files;
 * the drift check calls it with dryRun to find files changed on disk.
 */
export async function syncServiceConfigOnServer(s: Services, serviceId: string, serverId: string, dryRun: boolean): Promise<TargetResult[]> {
  const attachments = await s.configStore.attachments.forService(serviceId);
  if (attachments.length === 0) return [];
  const fileIds = [...new Set(attachments.map((a) => a.configFileId))];
  const files = await s.configStore.files.findByIds(fileIds);
  const targets = await targetsOf(s.db, files, attachments, serverId);
  return s.configStore.sync.syncEach(files, targets, dryRun);
}
