import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';

/**
 * A controller started with MANIFESTS_DIR applies that folder at each change: an `apply` from
 * elsewhere changes the store until the next save there silently reverts it (issue 28). So it
 * is refused with the reason (GET /api/manifests/status says `watching` and the folder), or,
 * with --force, done with a warning that the folder will win.
 */
export async function refuseWatchedFolder(api: ApiClient, force: boolean): Promise<void> {
  const status = await api.get<{ watching?: boolean; dir?: string | null }>('/api/manifests/status');
  if (!status.watching) return;
  const why = `the controller applies manifests from its watched folder ${status.dir ?? ''}`.trimEnd();
  if (!force) throw new CliError(`${why}: an apply from here is reverted by the next change there; edit that folder, or pass --force`);
  process.stderr.write(`stevedore: warning: ${why}; its next change will win over this apply\n`);
}
