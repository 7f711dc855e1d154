import { Option, type Command } from 'commander';
import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { loadManifests } from '../manifests/load.js';
import { readManifestDir } from '../manifests/read-dir.js';
import { keyOf, type ManifestError, type ManifestFile } from '../manifests/types.js';
import { CliError, EXIT, UsageError } from './cli-error.js';
import { contextOf, envOption, paletteOf } from './command-context.js';
import { environmentOf } from './resolve.js';
import { formatChanges, formatErrors } from './format-changes.js';
import { setExitCode } from './exit-code.js';
import { isWatchedFolder, refuseWatchedFolder } from './watched-folder.js';

/**
 * `validate PATH`, `diff PATH` and `apply PATH [--prune] [--dry-run]` (PATH positional or
 * `-f PATH`: a folder, one YAML file, or `-` for stdin). Exit codes, for CI: diff 0 nothing would
 * change, 2 something would (or a service does not run what is desired: Degraded); apply 0 once
 * applied (2 with --detailed-exitcode when something changed); 1 an error (invalid manifests,
 * unreachable controller, refused).
 */
export async function readManifestFiles(target: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<ManifestFile[]> {
  if (target === '-') {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
    return [{ path: 'stdin.yaml', content: Buffer.concat(chunks).toString('utf8') }];
  }
  let st: Stats;
  try {
    st = await stat(target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`no file or folder ${target}`);
    throw new CliError(`cannot read ${target}: ${(e as Error).message}`);
  }
  if (st.isDirectory()) return readManifestDir(target);
  // the file's name is what the objects record as their manifest (a 409 names it)
  if (!/\.ya?ml$/i.test(target)) throw new CliError(`${target} is not a .yaml or .yml file`);
  return [{ path: basename(target), content: await readFile(target, 'utf8') }];
}

/** PATH as the argument or as -f, exactly one of them. */
function targetOf(arg: string | undefined, opts: { file?: string }, verb: string): string {
  if (arg && opts.file) throw new UsageError(`${verb} takes PATH or -f PATH, not both`);
  const target = arg ?? opts.file;
  if (!target) throw new UsageError(`${verb} needs a manifests folder, a YAML file or - (stdin): ${verb} -f PATH`);
  return target;
}

/**
 * `-e ENV`: the files are that environment's, as a Git source's folder is: a manifest naming
 * another environment is an error (an Environment manifest may declare ENV itself).
 */
export function outsideEnvironment(files: ManifestFile[], env: string): ManifestError[] {
  return loadManifests(files).manifests.flatMap((m) => {
    const meta = m.metadata as { name: string; environment?: string };
    const where = m.kind === 'Environment' ? meta.name : meta.environment;
    if (where === env) return [];
    const path = m.kind === 'Environment' ? ['metadata', 'name'] : ['metadata', 'environment'];
    return [{ file: m.file, ...m.positionOf(path), path: path.join('/'), message: `${m.kind} '${meta.name}' belongs to ${where === undefined ? 'no environment' : `the environment ${where}`}, not ${env} (-e ${env})` }];
  });
}

function reportInvalid(errors: ManifestError[], what: string, opts: Record<string, unknown>): never {
  process.stderr.write(formatErrors(errors, paletteOf(opts, process.stderr)));
  throw new CliError(`${what}: invalid manifests`);
}

/**
 * `validate PATH`: offline, everything the files reference must be in them. `-e ENV`: against the
 * controller (the diff route: references may name what its store holds, ENV must exist there);
 * with `--offline -e ENV`, ENV is taken to exist and nothing is asked.
 */
async function validate(arg: string | undefined, _o: unknown, cmd: Command): Promise<void> {
  const opts = cmd.optsWithGlobals();
  const target = targetOf(arg, opts, 'validate');
  const files = await readManifestFiles(target);
  const env: string | undefined = opts.env;
  const scope = env ? outsideEnvironment(files, env) : [];
  if (env && !opts.offline) {
    const { api, conn } = contextOf(cmd);
    await environmentOf(api, env);
    const result = await api.post<{ ok: boolean; errors: ManifestError[] }>('/api/manifests/diff', { files });
    if (result.errors.length || scope.length) reportInvalid([...scope, ...result.errors], target, opts);
    process.stdout.write(`${loadManifests(files).manifests.length} manifest(s) valid for environment ${env} on ${conn.url}.\n`);
    return;
  }
  const result = loadManifests(files, env ? new Set([keyOf('Environment', undefined, env)]) : undefined);
  if (result.errors.length || scope.length) reportInvalid([...scope, ...result.errors], target, opts);
  process.stdout.write(`${result.manifests.length} manifest(s) valid (${result.contentHash})${env ? `, environment ${env} taken to exist (offline)` : ''}.\n`);
}

async function callService(route: 'diff' | 'apply', target: string, cmd: Command): Promise<void> {
  const { api, opts, palette } = contextOf(cmd);
  const files = await readManifestFiles(target);
  if (route === 'diff' && opts.env) {
    const scope = outsideEnvironment(files, opts.env);
    if (scope.length) reportInvalid(scope, target, opts);
  }
  if (route === 'apply' && !opts.dryRun) await refuseWatchedFolder(api, !!opts.force, files);
  // The watched folder itself (the same content the controller last read) is diffed there: files
  // sent to the API may not read the controller's environment, the folder's own may.
  const watchedCopy = route === 'diff' && await isWatchedFolder(api, files);
  const body = { ...(!watchedCopy && { files }), ...(opts.prune !== undefined && { prune: opts.prune }), ...(opts.dryRun && { dryRun: true }) };
  const res = await api.raw('POST', `/api/manifests/${route}`, body);
  const result = await res.json().catch(() => ({})) as Record<string, any>;
  if (Array.isArray(result.errors) && result.errors.length) reportInvalid(result.errors, target, opts);
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

const fileOption = () => new Option('-f, --file <path>', 'a manifests folder, one YAML file, or - for stdin');

export function registerManifestCommands(program: Command): void {
  program.command('validate').argument('[path]', 'manifests folder or YAML file (- for stdin)')
    .description('check manifests: offline, or with -e ENV against the controller, where ENV and what its store holds may be referenced (exit 0 valid, 1 errors)')
    .addOption(fileOption())
    .option('-e, --env <environment>', 'the files are this environment\'s (as a Git source\'s folder): checked against the controller, or with --offline taken to exist')
    .option('--offline', 'never ask the controller (the default without -e)')
    .action(validate);
  program.command('diff').argument('[path]', 'manifests folder or YAML file (- for stdin)')
    .description('show what applying PATH (or, with --source, the next sync of the environment\'s Git source) would change (exit 0 nothing would, 2 something would, 1 error)')
    .addOption(fileOption())
    .option('--prune', 'also delete what the files no longer declare')
    .option('--source', 'fetch the environment\'s Git source and diff its commit against the store (-e ENV)')
    .addOption(envOption())
    .action((arg: string | undefined, o: { source?: boolean; file?: string }, cmd: Command) => {
      if (o.source && (arg || o.file)) throw new UsageError('diff takes PATH or --source, not both');
      if (o.source) return diffSource(cmd);
      if (!arg && !o.file) throw new UsageError('diff needs a manifests folder or file (diff -f PATH), or --source -e ENV');
      return callService('diff', targetOf(arg, o, 'diff'), cmd);
    });
  program.command('apply').argument('[path]', 'manifests folder or YAML file (- for stdin)')
    .description('apply PATH (folder, file or - for stdin) and start the deploys it needs (exit 0 applied, 1 error)')
    .addOption(fileOption())
    .option('--prune', 'also delete what the files no longer declare')
    .option('--dry-run', 'only show what would change')
    .option('--detailed-exitcode', 'exit 2 when something changed (as diff)')
    .option('--force', 'apply even though a watched folder or a Git source holds these manifests (it wins at its next change)')
    .action((arg: string | undefined, o: { file?: string }, cmd: Command) => callService('apply', targetOf(arg, o, 'apply'), cmd));
}
