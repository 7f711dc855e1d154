import { UsageError } from './cli-error.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5m", "30s", "1h30m", "90" (seconds) in milliseconds, as kubectl's --timeout. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text) throw new UsageError(`${text} is not a duration (for example 30s, 5m, 1h)`);
  return parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNIT_MS[unit], 0);
}

/** `--for=condition=Ready` (status True) or `condition=Degraded=False`. */
export function parseWaitFor(text: string): { type: string; status: string } {
  const m = /^condition=([A-Za-z]+)(?:=(True|False|Unknown))?$/i.exec(text);
  if (!m) throw new UsageError(`--for=${text}: expected condition=NAME or condition=NAME=True|False`);
  const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
  return { type: cap(m[1]), status: m[2] ? cap(m[2].toLowerCase()) : 'True' };
}
