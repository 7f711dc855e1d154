import { createHash } from 'node:crypto';
import { shannonEntropy } from './entropy.js';
import { tokenize } from './placeholders.js';
import { MASK } from '../crypto/redact.js';

export interface ScanOptions {
  /** configuration.scanMinLength */
  minLength: number;
  /** configuration.scanEntropyThreshold: Shannon entropy ×10 */
  entropyThreshold: number;
}

export interface Finding {
  /** Stable id of this value in this file (what substitution-create refers to). */
  id: string;
  line: number;
  column: number;
  /** The setting name the value was assigned to, as written. */
  name: string;
  suggestedKey: string;
  length: number;
  /** Shannon entropy ×10, one decimal. */
  entropy: number;
  /** The value as reads show it: the fixed mask, no character of it (controller/crypto/redact.ts). */
  masked: string;
  /** Where the value sits in the content (offsets into the content). */
  start: number;
  end: number;
  value: string;
}

// name = value, name: value, name value; (nginx) with an optional quote around the value
const ASSIGNMENT_RE = /([A-Za-z_][A-Za-z0-9_.-]*)(?:\s*[:=]\s*|\s+)(["']?)([^\s"'`;,]+)\2/g;

export const findingId = (scope: string, value: string) =>
  createHash('sha256').update(scope).update('\0').update(value).digest('hex').slice(0, 16);

/** A key from a setting name: db.password -> DB_PASSWORD. */
export function suggestKey(name: string): string {
  let key = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase().replace(/[^A-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  if (!key) key = 'SECRET';
  if (/^[0-9]/.test(key)) key = `_${key}`;
  return key;
}

/**
 * Likely secrets in a template: values assigned to a name, at least minLength long, with
 * entropy ×10 at least the threshold, that are not placeholders already. Pure; `scope` (the
 * config file id) makes finding ids distinct per file.
 */
export function scanContent(content: string, scope: string, opts: ScanOptions): Finding[] {
  const placeholderSpans = tokenize(content).map((t) => [t.start, t.end] as const);
  const inPlaceholder = (s: number, e: number) => placeholderSpans.some(([ps, pe]) => s < pe && e > ps);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  const lines = content.split('\n');
  let offset = 0;
  lines.forEach((text, i) => {
    ASSIGNMENT_RE.lastIndex = 0;
    for (let m = ASSIGNMENT_RE.exec(text); m; m = ASSIGNMENT_RE.exec(text)) {
      const value = m[3];
      const col = m.index + m[0].length - m[2].length - value.length;
      const start = offset + col;
      const end = start + value.length;
      if ([...value].length < opts.minLength) continue;
      if (value.includes('${') || value.includes('$') || inPlaceholder(start, end)) continue;
      const entropy = shannonEntropy(value) * 10;
      if (entropy < opts.entropyThreshold) continue;
      const id = findingId(scope, value);
      if (seen.has(id)) continue;
      seen.add(id);
      findings.push({
        id, line: i + 1, column: col + 1, name: m[1], suggestedKey: suggestKey(m[1]), length: value.length,
        entropy: Math.round(entropy * 10) / 10, masked: MASK,
        start, end, value,
      });
    }
    offset += text.length + 1;
  });
  return findings;
}

/** Replaces every occurrence of `value` in `content` by `${KEY}` (a substitution). */
export function substitute(content: string, value: string, key: string): string {
  return content.split(value).join('${' + key + '}');
}
