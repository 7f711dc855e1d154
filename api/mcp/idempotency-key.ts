import { createHash } from 'node:crypto';

/** The dedup window of a derived key (spec, limits: about 60 seconds). */
export const BUCKET_MS = 60_000;

/** JSON with object keys sorted at every depth and undefined left out: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The Idempotency-Key a write tool sends (spec, limits): sha256(toolName:timeBucket:canonical
 * JSON of the arguments), so an agent that repeats a call within the bucket gets the first answer
 * back. A dry run sends none (always recomputed); an explicit idempotencyKey argument wins and is
 * not part of the hash.
 */
export function idempotencyKeyFor(toolName: string, args: Record<string, unknown>, now = Date.now()): string | null {
  if (args.dryRun === true) return null;
  const { idempotencyKey, ...rest } = args;
  if (typeof idempotencyKey === 'string') return idempotencyKey;
  const bucket = Math.floor(now / BUCKET_MS);
  return createHash('sha256').update(`${toolName}:${bucket}:${canonicalJson(rest)}`).digest('hex');
}
