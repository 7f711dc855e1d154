// Values of the API shown as text a person reads: an object as key/value pairs (nested ones
// indented), a list as its items, a date as ISO 8601 with 24-hour time, never a JSON blob. Long
// unbroken values (hashes, ids, URLs) wrap inside their box instead of widening the page.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
const pad = (n: number) => String(n).padStart(2, '0');

/** A timestamp as the browser's local time in ISO 8601 order, 24-hour: 2026-11-27 09:04:30. */
export function formatDate(t: string | number | Date): string {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** One value: text as it is (a timestamp formatted), a list of scalars joined, anything else as key/value pairs. */
export function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="reason">none</span>;
  if (typeof value === 'string') return <span class="value">{ISO.test(value) ? formatDate(value) : value === '' ? '""' : value}</span>;
  if (typeof value === 'number' || typeof value === 'boolean') return <span class="value">{String(value)}</span>;
  if (Array.isArray(value)) {
    if (!value.length) return <span class="reason">empty</span>;
    if (value.every((v) => v === null || typeof v !== 'object')) return <span class="value">{value.map((v) => (v === null ? 'none' : String(v))).join(', ')}</span>;
    return <ol class="values">{value.map((v) => <li><Value value={v} /></li>)}</ol>;
  }
  return <KeyValues value={value as Record<string, unknown>} />;
}

/** An object as a definition list: each key, then its value (nested objects within). */
export function KeyValues({ value }: { value: Record<string, unknown> | null | undefined }) {
  const entries = Object.entries(value ?? {});
  if (!entries.length) return <span class="reason">—</span>;
  return (
    <dl class="kv">
      {entries.map(([k, v]) => <><dt>{k}</dt><dd><Value value={v} /></dd></>)}
    </dl>
  );
}
