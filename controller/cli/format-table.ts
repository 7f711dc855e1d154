/**
 * Aligned columns with an upper-case header, like `kubectl get`: every column as wide as its
 * widest cell, two spaces between, no trailing blanks. An empty cell shows as `<none>`.
 */
export function formatTable(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = rows.map((r) => headers.map((_, i) => {
    const v = r[i];
    return v === null || v === undefined || v === '' ? '<none>' : String(v);
  }));
  const head = headers.map((h) => h.toUpperCase());
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return `${[head, ...cells].map(line).join('\n')}\n`;
}

/** "3m", "2h", "5d" since an ISO time, as kubectl's AGE column. */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
