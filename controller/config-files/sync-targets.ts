import type { ConfigReads } from '../store/repositories/config-reads.js';
import type { ConfigAttachmentRow } from '../store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../store/repositories/config-files.js';
import { referencesOf } from './placeholders.js';
import { fileModeFor } from './target-path.js';
import { configFileHostPath } from '../deploy/compose/compose-path-rules.js';

/**
 * One file for one deployment: the unit every sync works in. The file is written under the
 * deployment's own directory on its server (hostPath) and bind-mounted read-only at targetPath
 * inside the container, so two deployments on one server never share (or overwrite) a file.
 */
export interface SyncTarget {
  attachmentId: string;
  configFileId: string;
  configFileName: string;
  serviceId: string;
  serverId: string;
  serverName: string;
  deploymentId: string;
  containerName: string;
  /** Inside the container. */
  targetPath: string;
  /** On the server. */
  hostPath: string;
  mode: number;
}

/**
 * Expands attachments to targets: every deployment of the attachment's service (optionally only
 * those on `serverId`), in the order of `files`, then attachment, then server and container name.
 */
export async function targetsOf(reads: ConfigReads, files: ConfigFileRow[], attachments: ConfigAttachmentRow[], serverId?: string): Promise<SyncTarget[]> {
  if (attachments.length === 0) return [];
  const placements = await reads.placementsOf([...new Set(attachments.map((a) => a.serviceId))], serverId);
  placements.sort((a, b) => a.serverName.localeCompare(b.serverName) || a.containerName.localeCompare(b.containerName));
  const sensitive = await sensitiveFiles(reads, files);
  const fileOrder = new Map(files.map((f, i) => [f.id, i]));
  const ordered = [...attachments].sort((a, b) => (fileOrder.get(a.configFileId) ?? 0) - (fileOrder.get(b.configFileId) ?? 0));
  const targets: SyncTarget[] = [];
  for (const a of ordered) {
    const file = files.find((f) => f.id === a.configFileId);
    if (!file) continue;
    for (const p of placements.filter((x) => x.serviceId === a.serviceId)) {
      targets.push({
        attachmentId: a.id, configFileId: a.configFileId, configFileName: file.name, serviceId: a.serviceId,
        serverId: p.serverId, serverName: p.serverName, deploymentId: p.deploymentId, containerName: p.containerName,
        targetPath: a.targetPath, hostPath: configFileHostPath(p.containerName, a.targetPath),
        mode: fileModeFor(a.targetPath, a.mode, sensitive.has(file.id)),
      });
    }
  }
  return targets;
}

/**
 * Files whose written bytes hold (or may hold) a secret value: templates that reference a secret
 * key directly or through a fragment, and binary assets (certificates, key stores).
 */
export async function sensitiveFiles(reads: ConfigReads, files: ConfigFileRow[]): Promise<Set<string>> {
  const out = new Set(files.filter((f) => f.kind === 'asset').map((f) => f.id));
  const templates = files.filter((f) => f.kind === 'template');
  if (templates.length === 0) return out;
  const { secrets, fragments } = await reads.secretKeysAndFragments([...new Set(templates.map((f) => f.environmentId))]);
  const secretKeys = new Set(secrets.map((r) => `${r.environmentId}\0${r.key}`));
  const fragmentKeys = new Map(fragments.map((r) => [`${r.environmentId}\0${r.name}`, referencesOf(r.content).keys]));
  for (const f of templates) {
    const refs = referencesOf(f.content ?? '');
    const keys = [...refs.keys, ...refs.fragments.flatMap((n) => fragmentKeys.get(`${f.environmentId}\0${n}`) ?? [])];
    if (keys.some((k) => secretKeys.has(`${f.environmentId}\0${k}`))) out.add(f.id);
  }
  return out;
}
