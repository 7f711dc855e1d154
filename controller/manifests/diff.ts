import { isDeepStrictEqual } from 'node:util';
import { KIND_ORDER, stateKey, type Change, type FieldChange, type ObjectState } from './state.js';

const SECRET = /^sha256:/;
/** A secret's digest, or a map of them (a kind's sealedMaps): shown as `secret: true`, never as values. */
const isSecret = (v: unknown): boolean => (typeof v === 'string' && SECRET.test(v))
  || (!!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0
    && Object.values(v).every((x) => typeof x === 'string' && SECRET.test(x)));

/**
 * What applying `desired` to the store would do. Pure: the same inputs give the same changes.
 * Only the fields a manifest sets are compared; actual objects that came from a manifest and
 * are no longer desired are deleted when pruning, otherwise reported as orphaned.
 */
export function diffStates(desired: ObjectState[], actual: ObjectState[], opts: { prune: boolean; origin?: string }): Change[] {
  const byKey = new Map(actual.map((a) => [stateKey(a), a]));
  const changes: Change[] = [];
  const wanted = new Set<string>();
  for (const d of desired) {
    const key = stateKey(d);
    wanted.add(key);
    const a = byKey.get(key);
    const path = d.source!.path;
    if (!a) {
      changes.push({ action: 'create', kind: d.kind, environment: d.environment, name: d.name, path, fields: createdFields(d) });
      continue;
    }
    const fields: FieldChange[] = [];
    for (const [field, to] of Object.entries(d.fields)) {
      const from = a.fields[field];
      if (isDeepStrictEqual(from ?? null, to ?? null)) continue;
      fields.push(isSecret(to) || isSecret(from) ? { field, secret: true } : { field, from, to });
    }
    const sourceChanged = !sameSource(d, a);
    if (fields.length || sourceChanged) {
      changes.push({ action: 'update', kind: d.kind, environment: d.environment, name: d.name, path, fields, ...(!fields.length && { sourceOnly: true }) });
    }
  }
  for (const a of actual) {
    if (!a.source || wanted.has(stateKey(a))) continue;
    // each source answers for what it applied: a Git source never prunes the folder's objects, nor the folder a Git source's
    if ((a.source.origin ?? null) !== (opts.origin ?? null)) continue;
    changes.push({ action: opts.prune ? 'delete' : 'orphan', kind: a.kind, environment: a.environment, name: a.name, path: a.source.path, fields: [] });
  }
  return sortChanges(changes);
}

function createdFields(d: ObjectState): FieldChange[] {
  return Object.entries(d.fields).map(([field, to]) => (isSecret(to) ? { field, secret: true } : { field, to }));
}

function sameSource(d: ObjectState, a: ObjectState): boolean {
  const s = a.source;
  if (!s) return false;
  return s.path === d.source!.path && (s.name ?? null) === (d.source!.name ?? null) && (s.origin ?? null) === (d.source!.origin ?? null)
    && (s.repository ?? null) === (d.source!.repository ?? null)
    && isDeepStrictEqual([...s.fields].sort(), [...d.source!.fields].sort())
    && isDeepStrictEqual(s.labels ?? {}, d.source!.labels ?? {});
}

const rank = (c: Change) => {
  const i = KIND_ORDER.indexOf(c.kind);
  return c.action === 'delete' ? 100 + (KIND_ORDER.length - i) : i;
};

/** Creates and updates in dependency order, then deletions in reverse order. */
export function sortChanges(changes: Change[]): Change[] {
  return [...changes].sort((a, b) => rank(a) - rank(b) || stateKey(a).localeCompare(stateKey(b)));
}

export const countChanges = (changes: Change[]) => ({
  create: changes.filter((c) => c.action === 'create').length,
  update: changes.filter((c) => c.action === 'update').length,
  delete: changes.filter((c) => c.action === 'delete').length,
  orphan: changes.filter((c) => c.action === 'orphan').length,
});
