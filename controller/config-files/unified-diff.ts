/**
 * A unified diff (as `diff -u` prints it) of two texts, line by line. The `diff` package finds the
 * hunks; only the printing is ours, because `diff -u` drops the count of a one-line range
 * (`@@ -3 +3 @@`) and has no `Index:`/`====` preamble, which the package's own formatter prints.
 */
import { structuredPatch } from 'diff';

const range = (start: number, len: number) => (len === 1 ? `${start}` : `${len === 0 ? start - 1 : start},${len}`);

/** '' when the texts are equal; otherwise the diff with `--- oldLabel` / `+++ newLabel` headers. */
export function unifiedDiff(oldText: string, newText: string, oldLabel = 'a', newLabel = 'b', context = 3): string {
  if (oldText === newText) return '';
  const { hunks } = structuredPatch(oldLabel, newLabel, oldText, newText, undefined, undefined, { context });
  if (hunks.length === 0) return '';
  const out = [`--- ${oldLabel}\n`, `+++ ${newLabel}\n`];
  for (const h of hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`);
    for (const line of h.lines) out.push(`${line}\n`);
  }
  return out.join('');
}
