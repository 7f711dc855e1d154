import type { Command } from 'commander';
import { loadManifests } from '../manifests/load.js';
import { readManifestDir } from '../manifests/read-dir.js';
import { CliError, EXIT, UsageError } from './cli-error.js';
import { contextOf, envOption, paletteOf } from './command-context.js';
import { environmentOf } from './resolve.js';
import { formatChanges, formatErrors } from './format-changes.js';
import { setExitCode } from './exit-code.js';
import { isWatchedFolder, refuseWatchedFolder } from './watched-folder.js';

/**
 * `validate DIR` (offline), `diff DIR` and `apply DIR [--prune] [--dry-run]` against a running
 * controller. Exit codes, for CI: diff 0 nothing would change, 2 something would (or a service
 * does not run what is desired: Degraded); apply 0 once applied (2 with --detailed-exitcode
 * when something changed); 1 an error (invalid manifests, unreachable controller, refused).
 */
async function readDir(dir: string) {
  try {
    return await readManifestDir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`no folder ${dir}`);
    throw e;
  }
}

async function validate(dir: string, _o: unknown, cmd: Command): Promise<void> {
  const result = loadManifests(await readDir(dir));
  if (result.errors.length) {
    process.stderr.write(formatErrors(result.errors, paletteOf(cmd.optsWithGlobals(), process.stderr)));
    throw new CliError(`${dir}: invalid manifests`);
  }
  process.stdout.write(`${result.manifests.length} manifest(s) valid (${result.contentHash}).\n`);
}

async function callService(route: 'diff' | 'apply', dir: string, cmd: Command): Promise<void> {
  const { api, opts, palette } = contextOf(cmd);
  const files = await readDir(dir);
  if (route === 'apply' && !opts.dryRun) await refuseWatchedFolder(api, !!opts.force, files);
  // The watched folder itself (the same content the controller last read) is diffed there: files
  // sent to the API may not read the controller's environment, the folder's own may.
  const watchedCopy = route === 'diff' && await isWatchedFolder(api, files);
  const body = { ...(!watchedCopy && { files }), ...(opts.prune !== undefined && { prune: opts.prune }), ...(opts.dryRun && { dryRun: true }) };
  const res = await api.raw('POST', `/api/manifests/${route}`, body);
  const result = await res.json().catch(() => ({})) as Record<string, any>;
  if (Array.isArray(result.errors) && result.errors.length) {
    process.stderr.write(formatErrors(result.errors, paletteOf(opts, process.stderr)));
    throw new CliError(`${dir}: invalid manifests`);
  }
  if (!res.ok) throw new CliError(`${route}: ${res.status} ${result.code ?? ''} ${result.message ?? ''}${result.hint ? ` (${result.hint})` : ''}`.replace(/ +/g, ' ').trim());
  const degraded = Array.isArray(result.degraded) ? result.degraded : [];
  process.stdout.write(formatChanges(result.changes, palette, degraded));
  if (route === 'apply' && !result.dryRun && result.changes.length) {
    process.stdout.write(`Applied revision ${result.revision.contentHash}${result.plans?.length ? `; started ${result.plans.length} deploy plan(s): ${result.plans.join(', ')}` : ''}.\n`);
  }
  // a Degraded object differs from what the store desires: never "nothing would change"
  const changed = result.changes.some((c: { action: string }) => c.action !== 'orphan') || degraded.length > 0;
  if (changed && (route === 'diff' || opts.detailedExitcode)) setExitCode(EXIT.changes);
}

/** `diff --source -e ENV`: what the next sync of the environment's Git source would do (exit as diff). */
async function diffSource(cmd: Command): Promise<void> {
  const { api, environment, opts, palette } = contextOf(cmd);
  const env = await environmentOf(api, environment);
  const result = await api.get(`/api/environments/${env.id}/manifests-source/diff`);
  const c = result.commit as { commit: string; author: string; message: string };
  process.stdout.write(`Commit ${c.commit.slice(0, 12)} (${c.author}): ${c.message.split('\n')[0]}\n`);
  if (result.errors.length) {
    process.stderr.write(formatErrors(result.errors, paletteOf(opts, process.stderr)));
    throw new CliError(`commit ${c.commit.slice(0, 12)}: invalid manifests; the next sync would apply nothing`);
  }
  process.stdout.write(formatChanges(result.changes, palette, result.degraded));
  const changed = result.changes.some((x: { action: string }) => x.action !== 'orphan') || result.degraded.length > 0;
  if (changed) setExitCode(EXIT.changes);
}

export function registerManifestCommands(program: Command): void {
  program.command('validate').argument('<dir>', 'manifests folder')
    .description('check a manifests folder offline (exit 0 valid, 1 errors)')
    .action(validate);
  program.command('diff').argument('[dir]', 'manifests folder')
    .description('show what applying DIR (or, with --source, the next sync of the environment\'s Git source) would change (exit 0 nothing would, 2 something would, 1 error)')
    .option('--prune', 'also delete what the folder no longer declares')
    .option('--source', 'fetch the environment\'s Git source and diff its commit against the store (-e ENV)')
    .addOption(envOption())
    .action((dir: string | undefined, o: { source?: boolean }, cmd: Command) => {
      if (o.source && dir) throw new UsageError('diff takes a folder or --source, not both');
      if (o.source) return diffSource(cmd);
      if (!dir) throw new UsageError('diff needs a manifests folder, or --source -e ENV');
      return callService('diff', dir, cmd);
    });
  program.command('apply').argument('<dir>', 'manifests folder')
    .description('apply DIR and start the deploys it needs (exit 0 applied, 1 error)')
    .option('--prune', 'also delete what the folder no longer declares')
    .option('--dry-run', 'only show what would change')
    .option('--detailed-exitcode', 'exit 2 when something changed (as diff)')
    .option('--force', 'apply even though a watched folder or a Git source holds these manifests (it wins at its next change)')
    .action((dir, _o, cmd) => callService('apply', dir, cmd));
}
