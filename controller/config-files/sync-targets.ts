import type { Knex } from 'knex';
import type { ConfigAttachmentRow } from '../store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../store/repositories/config-files.js';
import { fileModeFor } from './target-path.js';

/** One file at one path on one server: the unit every sync works in. */
export interface SyncTarget {
  attachmentId: string;
  configFileId: string;
  configFileName: string;
  serviceId: string;
  serverId: string;
  serverName: string;
  targetPath: string;
  mode: number;
}

/**
 * Expands attachments to targets: every server the attachment's service has a deployment on
 * (optionally only `serverId`), in the order of `files`, then attachment, then server name.
 */
export async function targetsOf(db: Knex, files: ConfigFileRow[], attachments: ConfigAttachmentRow[], serverId?: string): Promise<SyncTarget[]> {
  if (attachments.length === 0) return [];
  const serviceIds = [...new Set(attachments.map((a) => a.serviceId))];
  const q = db('deployments').join('servers', 'servers.id', 'deployments.serverId')
    .whereIn('deployments.serviceId', serviceIds)
    .distinct('deployments.serviceId as serviceId', 'servers.id as serverId', 'servers.name as serverName');
  if (serverId) q.where('servers.id', serverId);
  const placements = (await q) as Array<{ serviceId: string; serverId: string; serverName: string }>;
  placements.sort((a, b) => a.serverName.localeCompare(b.serverName));
  const fileOrder = new Map(files.map((f, i) => [f.id, i]));
  const ordered = [...attachments].sort((a, b) => (fileOrder.get(a.configFileId) ?? 0) - (fileOrder.get(b.configFileId) ?? 0));
  const targets: SyncTarget[] = [];
  for (const a of ordered) {
    const file = files.find((f) => f.id === a.configFileId);
    if (!file) continue;
    for (const p of placements.filter((x) => x.serviceId === a.serviceId)) {
      targets.push({
        attachmentId: a.id, configFileId: a.configFileId, configFileName: file.name, serviceId: a.serviceId,
        serverId: p.serverId, serverName: p.serverName, targetPath: a.targetPath, mode: fileModeFor(a.targetPath, a.mode),
      });
    }
  }
  return targets;
}
