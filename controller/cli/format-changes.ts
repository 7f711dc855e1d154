import type { Change, FieldChange } from '../manifests/state.js';
import { formatError, type ManifestError } from '../manifests/types.js';

export interface Palette { green(s: string): string; yellow(s: string): string; red(s: string): string; dim(s: string): string }

const paint = (code: number) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;
export const COLOURS: Palette = { green: paint(32), yellow: paint(33), red: paint(31), dim: paint(2) };
export const PLAIN: Palette = { green: (s) => s, yellow: (s) => s, red: (s) => s, dim: (s) => s };

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export const paletteFor = (stream: NodeJS.WriteStream, env = process.env): Palette => (stream.isTTY && !env.NO_COLOR ? COLOURS : PLAIN);

const value = (v: unknown) => (v === undefined ? '(unset)' : JSON.stringify(v));
const MARK = { create: '+', update: '~', delete: '-', orphan: '?' } as const;

function fieldLine(f: FieldChange, action: Change['action'], p: Palette): string {
  if (f.secret) return `    ${f.field}: ${p.dim('(secret value, not shown)')}`;
  if (action === 'create') return `    ${f.field}: ${value(f.to)}`;
  return `    ${f.field}: ${p.red(value(f.from))} -> ${p.green(value(f.to))}`;
}

/** What `GET /api/manifests/status` and the diff route report of an object that is Degraded. */
export interface DegradedLine { kind: string; environment: string; name: string; reason: string; message: string; desiredImageTag: string | null; runningImageTags: string[] }

/** "! Service prod/web: Degraded (PullFailed): desired v77, running v2" and the cause below it. */
export function formatDegraded(items: DegradedLine[], p: Palette): string {
  const lines = items.flatMap((d) => {
    const running = d.runningImageTags.length ? d.runningImageTags.join(', ') : 'nothing';
    return [p.red(`! ${d.kind} ${d.environment}/${d.name}: Degraded (${d.reason}): desired ${d.desiredImageTag ?? '(none)'}, running ${running}`), `    ${d.message}`];
  });
  return lines.length ? `${lines.join('\n')}\n${items.length} object(s) do not run what the store desires.\n` : '';
}

/** A readable diff: one line per object (+ create, ~ update, - delete, ? orphan) and its fields. */
export function formatChanges(changes: Change[], p: Palette, degraded: DegradedLine[] = []): string {
  if (!changes.length) return degraded.length ? `The store matches the manifests, but:\n${formatDegraded(degraded, p)}` : 'No changes: the store matches the manifests.\n';
  const lines: string[] = [];
  for (const c of changes) {
    const colour = c.action === 'create' ? p.green : c.action === 'update' ? p.yellow : p.red;
    const where = c.environment ? `${c.environment}/` : '';
    const note = c.action === 'orphan' ? ' (not in the folder; kept: pass --prune to delete)' : c.sourceOnly ? ' (taken over by the manifest)' : '';
    lines.push(colour(`${MARK[c.action]} ${c.kind} ${where}${c.name}`) + p.dim(`  ${c.path}${note}`));
    if (c.action === 'create' || c.action === 'update') for (const f of c.fields) lines.push(fieldLine(f, c.action, p));
  }
  const n = (a: Change['action']) => changes.filter((c) => c.action === a).length;
  lines.push('', `${n('create')} to create, ${n('update')} to update, ${n('delete')} to delete, ${n('orphan')} orphaned.`);
  return `${lines.join('\n')}\n${formatDegraded(degraded, p)}`;
}

export function formatErrors(errors: ManifestError[], p: Palette): string {
  return `${errors.map((e) => p.red(formatError(e))).join('\n')}\n${errors.length} error(s); nothing applied.\n`;
}
