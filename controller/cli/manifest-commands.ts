import type { Command } from 'commander';
import { loadManifests } from '../manifests/load.js';
import { readManifestDir } from '../manifests/read-dir.js';
import { CliError, EXIT } from './cli-error.js';
import { contextOf, paletteOf } from './command-context.js';
import { formatChanges, formatErrors } from './format-changes.js';
import { setExitCode } from './exit-code.js';
import { refuseWatchedFolder } from './watched-folder.js';

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
  const body = { files, ...(opts.prune !== undefined && { prune: opts.prune }), ...(opts.dryRun && { dryRun: true }) };
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

export function registerManifestCommands(program: Command): void {
  program.command('validate').argument('<dir>', 'manifests folder')
    .description('check a manifests folder offline (exit 0 valid, 1 errors)')
    .action(validate);
  program.command('diff').argument('<dir>', 'manifests folder')
    .description('show what applying DIR would change (exit 0 nothing would, 2 something would, 1 error)')
    .option('--prune', 'also delete what the folder no longer declares')
    .action((dir, _o, cmd) => callService('diff', dir, cmd));
  program.command('apply').argument('<dir>', 'manifests folder')
    .description('apply DIR and start the deploys it needs (exit 0 applied, 1 error)')
    .option('--prune', 'also delete what the folder no longer declares')
    .option('--dry-run', 'only show what would change')
    .option('--detailed-exitcode', 'exit 2 when something changed (as diff)')
    .option('--force', 'apply even though a watched folder or a Git source holds these manifests (it wins at its next change)')
    .action((dir, _o, cmd) => callService('apply', dir, cmd));
}
