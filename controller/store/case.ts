/** Column names are snake_case in PostgreSQL and camelCase in code; knex converts at the edge. */
const snakeCache = new Map<string, string>();
const camelCache = new Map<string, string>();
const CACHE_MAX = 5000;

// Both run for every identifier of every query and every column of every row: memoised, since
// the set of names is small and fixed.
export const toSnake = (s: string): string => {
  let out = snakeCache.get(s);
  if (out === undefined) {
    out = s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
    if (snakeCache.size < CACHE_MAX) snakeCache.set(s, out);
  }
  return out;
};
export const toCamel = (s: string): string => {
  let out = camelCache.get(s);
  if (out === undefined) {
    out = s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (camelCache.size < CACHE_MAX) camelCache.set(s, out);
  }
  return out;
};

/** Converts only a row's own keys: JSON column contents keep the keys they were stored with. */
export function camelizeRow(row: unknown): unknown {
  if (row === null || typeof row !== 'object' || Array.isArray(row) || row instanceof Date) return row;
  const out: Record<string, unknown> = {};
  for (const k in row) out[toCamel(k)] = (row as Record<string, unknown>)[k];
  return out;
}
