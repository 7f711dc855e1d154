import { parseArgs } from 'node:util';
import { loadManifests } from '../manifests/load.js';
import { readManifestDir } from '../manifests/read-dir.js';
import { formatChanges, formatErrors, paletteFor } from './format-changes.js';

/**
 * `stevedore validate DIR` (offline), `stevedore diff DIR` and `stevedore apply DIR [--prune]
 * [--dry-run]` against a running service (--url/--token, or STEVEDORE_URL/STEVEDORE_TOKEN).
 * Exit codes, for CI: 0 nothing would change (or changed), 2 something would change (or
 * changed, or a service does not run what is desired: Degraded), 1 an error (invalid manifests, unreachable service, refused request).
 */
const EXIT_SAME = 0;
const EXIT_CHANGES = 2;
const EXIT_ERROR = 1;

function options(args: string[], extra: Record<string, { type: 'boolean' }> = {}) {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true, strict: true,
    options: { url: { type: 'string' }, token: { type: 'string' }, ...extra },
  });
  if (positionals.length !== 1) throw new UsageError('expected exactly one folder');
  return { dir: positionals[0], values: values as Record<string, string | boolean | undefined> };
}

export class UsageError extends Error {}

export async function validateCommand(args: string[]): Promise<number> {
  const { dir } = options(args);
  const p = paletteFor(process.stderr);
  const result = loadManifests(await readManifestDir(dir));
  if (result.errors.length) {
    process.stderr.write(formatErrors(result.errors, p));
    return EXIT_ERROR;
  }
  process.stdout.write(`${result.manifests.length} manifest(s) valid (${result.contentHash}).\n`);
  return EXIT_SAME;
}

async function callService(route: 'diff' | 'apply', args: string[]): Promise<number> {
  const { dir, values } = options(args, route === 'apply' ? { prune: { type: 'boolean' }, 'dry-run': { type: 'boolean' } } : { prune: { type: 'boolean' } });
  const url = (values.url as string | undefined) ?? process.env.STEVEDORE_URL;
  const token = (values.token as string | undefined) ?? process.env.STEVEDORE_TOKEN;
  if (!url || !token) throw new UsageError('set --url and --token (or STEVEDORE_URL and STEVEDORE_TOKEN)');
  const files = await readManifestDir(dir);
  const body = { files, ...(values.prune !== undefined && { prune: values.prune }), ...(values['dry-run'] && { dryRun: true }) };
  const res = await fetch(new URL(`/api/manifests/${route}`, url), {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
  });
  const out = await res.json().catch(() => ({})) as Record<string, any>;
  const out2 = paletteFor(process.stdout);
  if (Array.isArray(out.errors) && out.errors.length) {
    process.stderr.write(formatErrors(out.errors, paletteFor(process.stderr)));
    return EXIT_ERROR;
  }
  if (!res.ok) {
    process.stderr.write(`stevedore ${route}: ${res.status} ${out.code ?? ''} ${out.message ?? ''}${out.hint ? ` (${out.hint})` : ''}\n`);
    return EXIT_ERROR;
  }
  const degraded = Array.isArray(out.degraded) ? out.degraded : [];
  process.stdout.write(formatChanges(out.changes, out2, degraded));
  if (route === 'apply' && !out.dryRun && out.changes.length) {
    process.stdout.write(`Applied revision ${out.revision.contentHash}${out.plans?.length ? `; started ${out.plans.length} deploy plan(s): ${out.plans.join(', ')}` : ''}.\n`);
  }
  // a Degraded object differs from what the store desires: never "nothing would change"
  return out.changes.some((c: { action: string }) => c.action !== 'orphan') || degraded.length ? EXIT_CHANGES : EXIT_SAME;
}

export const diffCommand = (args: string[]) => callService('diff', args);
export const applyCommand = (args: string[]) => callService('apply', args);
