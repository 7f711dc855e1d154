import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import { loadManifests } from '../manifests/load.js';
import { contentHash } from '../manifests/read-dir.js';
import type { ManifestFile } from '../manifests/types.js';

interface ManifestsStatus {
  watching?: boolean;
  dir?: string | null;
  lastAttempted?: { revision?: { contentHash?: string } } | null;
  sources?: Array<{ environment: string; url: string; ref: string | null }>;
}

/** The environments the files declare objects in (an Environment manifest names its own). */
function environmentsOf(files: ManifestFile[]): Set<string> {
  const names = new Set<string>();
  for (const m of loadManifests(files).manifests) {
    const meta = m.metadata as { name: string; environment?: string };
    names.add(m.kind === 'Environment' ? meta.name : meta.environment ?? '');
  }
  return names;
}

/**
 * One source of truth. A controller started with MANIFESTS_DIR applies that folder at each
 * change, and an environment with a Git source applies its repository at each commit: an `apply`
 * from elsewhere changes the store until the next change there silently reverts it. So it is
 * refused with the reason (GET /api/manifests/status says `watching` and the folder, and each
 * environment's source), or, with --force, done with a warning that the source will win.
 */
export async function refuseWatchedFolder(api: ApiClient, force: boolean, files: ManifestFile[]): Promise<void> {
  const status = await api.get<ManifestsStatus>('/api/manifests/status');
  const reasons: string[] = [];
  if (status.watching) reasons.push(`the controller applies manifests from its watched folder ${status.dir ?? ''}`.trimEnd());
  const touched = status.sources?.length ? environmentsOf(files) : new Set<string>();
  for (const src of status.sources ?? []) {
    if (touched.has(src.environment)) reasons.push(`environment ${src.environment} takes its manifests from ${src.url}${src.ref ? ` (${src.ref})` : ''}`);
  }
  if (!reasons.length) return;
  const why = reasons.join('; ');
  if (!force) throw new CliError(`${why}: an apply from here is reverted by the next change there; change it there, or pass --force`);
  process.stderr.write(`stevedore: warning: ${why}; its next change will win over this apply\n`);
}

/** Whether these files are the folder the controller watches, as it last read it (the same content hash). */
export async function isWatchedFolder(api: ApiClient, files: ManifestFile[]): Promise<boolean> {
  const status = await api.get<ManifestsStatus>('/api/manifests/status');
  return !!status.watching && status.lastAttempted?.revision?.contentHash === contentHash(files);
}
