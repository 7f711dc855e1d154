import { unifiedDiff } from './unified-diff.js';

/**
 * The diff of what is on disk against what would be written, with every secret value (current
 * or earlier) replaced by an indexed marker before diffing, so a multi-line value cannot leak
 * through the line prefixes and a rotated value still shows as a change.
 */
export function redactedDiff(oldText: string, newText: string, path: string, isNew: boolean, values: string[]): string {
  const mask = (text: string) => {
    let out = text;
    values.forEach((v, i) => {
      if (out.includes(v)) out = out.split(v).join(`[REDACTED#${i + 1}]`);
    });
    return out;
  };
  return unifiedDiff(mask(oldText), mask(newText), isNew ? '/dev/null' : `a${path}`, `b${path}`);
}
