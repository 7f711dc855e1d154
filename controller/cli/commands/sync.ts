import type { Command } from 'commander';
import { CliError, UsageError } from '../cli-error.js';
import { contextOf, out } from '../command-context.js';
import { parseDuration } from '../duration.js';
import { environmentOf } from '../resolve.js';

interface SourceStatus {
  sync: 'Synced' | 'Syncing' | 'OutOfSync' | 'Failed';
  revision: { commit: string } | null;
  error?: string;
  lastAttempt: { ok: boolean; commit: string | null } | null;
}

/**
 * What `sync wait` makes of one look at the source's status: done (the commit applied), failed
 * (the attempt at it failed: its error), or null to look again. `commit`: a full or abbreviated SHA.
 */
export function syncOutcome(st: SourceStatus, commit?: string): { done: string } | { failed: string } | null {
  const matches = (sha: string | null | undefined) => !!sha && (!commit || sha.startsWith(commit));
  if (st.sync === 'Synced' && matches(st.revision?.commit)) return { done: st.revision!.commit };
  if (st.sync === 'Failed' && st.lastAttempt && (!commit || matches(st.lastAttempt.commit))) {
    return { failed: `${st.lastAttempt.commit ? `commit ${st.lastAttempt.commit.slice(0, 12)}` : 'the sync'} failed: ${st.error ?? 'no reason recorded'}` };
  }
  return null;
}

/**
 * `sync wait ENV [--commit SHA] [--timeout D]`: until the environment's Git source has applied its
 * commit (or SHA), as `argocd app wait` does; exit 1 when that sync failed (its error) or on timeout.
 * It reads GET …/manifests-source/status once a second.
 */
async function syncWait(envArg: string, opts: { commit?: string; timeout: string }, cmd: Command): Promise<void> {
  if (opts.commit !== undefined && !/^[0-9a-f]{4,40}$/i.test(opts.commit)) throw new UsageError(`--commit ${opts.commit}: a commit SHA (4 to 40 hex digits)`);
  const timeoutMs = parseDuration(opts.timeout);
  const { api } = contextOf(cmd);
  const env = await environmentOf(api, envArg);
  const commit = opts.commit?.toLowerCase();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await api.get<SourceStatus>(`/api/environments/${env.id}/manifests-source/status`);
    const outcome = syncOutcome(st, commit);
    if (outcome && 'done' in outcome) {
      out(`${env.name}: synced at commit ${outcome.done.slice(0, 12)}\n`);
      return;
    }
    if (outcome) throw new CliError(`${env.name}: ${outcome.failed}`);
    if (Date.now() >= deadline) {
      throw new CliError(`timed out waiting for ${env.name} to sync${commit ? ` commit ${commit}` : ''}: it is ${st.sync}${st.revision ? ` at ${st.revision.commit.slice(0, 12)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, deadline - Date.now()))));
  }
}

export function registerSyncCommands(program: Command): void {
  const sync = program.command('sync').description("wait for an environment's Git source");
  sync.command('wait').argument('<environment>', 'the environment (name or id)')
    .description('until its Git source has applied its commit, or --commit SHA (exit 1 when that sync failed, or on timeout)')
    .option('--commit <sha>', 'wait for this commit (full or abbreviated)')
    .option('--timeout <duration>', 'give up after (30s, 5m, 1h)', '5m')
    .action(syncWait);
}
