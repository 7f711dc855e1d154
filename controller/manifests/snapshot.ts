import type { Db, Trx } from '../store/knex.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { KINDS, kindOf } from '../kinds/index.js';
import { nameColumnOf, type KindDescriptor } from '../kinds/kind.js';
import { readManifestRows } from '../store/repositories/manifest-rows.js';
import { mapDigest, secretDigest } from './desired.js';
import { openHeaders } from '../delivery/sealed-headers.js';
import type { ManifestSource, ObjectState } from './state.js';

/** The store's objects, by table, with their ids: what diff compares and apply writes to. */
export interface Snapshot {
  objects: ObjectState[];
  envIds: Map<string, string>;
  /** `${env}/${kind}/${name}` -> id, for resolving references while applying. */
  ids: Map<string, string>;
  /** `${env}/${key}` -> the sealed value of each stored Secret, opened only when a secretRef names it. */
  sealedSecrets: Map<string, string>;
}

const manifestSource = (s: unknown): ManifestSource | undefined =>
  s && typeof s === 'object' && (s as { kind?: string }).kind === 'manifest' ? (s as ManifestSource) : undefined;

/** The name manifests know an object by: its name column, or its identity field. */
const nameOf = (k: KindDescriptor, row: Record<string, any>): string => row[nameColumnOf(k) ?? k.manifest.identity!];

/**
 * Reads every object the manifests can manage, in one consistent transaction when given, in the
 * comparable form each kind's descriptor gives: its columns, references by name, secrets as digests.
 */
export async function readSnapshot(db: Db | Trx, box: SecretBox): Promise<Snapshot> {
  const stored = KINDS.filter((k) => k.table);
  const { tables, related } = await readManifestRows(db, stored.map((k) => k.table!));
  const names = new Map<string, string>(); // `${kind}/${id}` -> name
  for (const k of stored) for (const row of tables[k.table!]) names.set(`${k.kind}/${row.id}`, nameOf(k, row));
  const indexes = new Map<string, Map<string, Record<string, any>[]>>();
  const relatedOf = (table: string, column: string, id: string) => {
    let index = indexes.get(`${table}.${column}`);
    if (!index) {
      index = new Map();
      for (const r of related[table]) {
        const rows = index.get(r[column]);
        if (rows) rows.push(r);
        else index.set(r[column], [r]);
      }
      indexes.set(`${table}.${column}`, index);
    }
    return index.get(id) ?? [];
  };
  const ctx = {
    nameOf: (kind: string, id: string | null | undefined) => (id ? names.get(`${kind}/${id}`) ?? null : null),
    relatedOf,
  };
  const envName = (id: string) => names.get(`Environment/${id}`);
  const open = (enc: string | null) => (enc ? secretDigest(box.open(enc)) : null);

  const objects: ObjectState[] = [];
  const ids = new Map<string, string>();
  const sealedSecrets = new Map<string, string>();
  const secretColumn = kindOf('Secret').secrets![0].column;
  for (const k of stored) {
    for (const row of tables[k.table!]) {
      const fields: Record<string, unknown> = {};
      for (const c of k.manifest.columns ?? []) fields[c] = row[c];
      for (const r of k.references ?? []) if (r.column) fields[r.path] = ctx.nameOf(r.kind, row[r.column]);
      for (const s of k.secrets ?? []) fields[s.field] = open(row[s.column]);
      for (const f of k.sealedMaps ?? []) fields[f] = mapDigest(openHeaders(box, row[f]));
      Object.assign(fields, k.manifest.actual?.(row, ctx));
      const environment = k.namespaced ? envName(row.environmentId) : undefined;
      const name = nameOf(k, row);
      const source = manifestSource(row.source);
      objects.push({ kind: k.kind, environment, name, fields, id: row.id, environmentId: row.environmentId ?? row.id, source });
      ids.set(`${environment ?? '-'}/${k.kind}/${name}`, row.id);
      if (k.kind === 'Secret' && row[secretColumn]) sealedSecrets.set(`${environment}/${name}`, row[secretColumn]);
      // References by the manifest's name resolve too (an image is stored under its imageName).
      if (k.manifest.identity && source?.name) ids.set(`${environment}/${k.kind}/${source.name}`, row.id);
    }
  }
  const envIds = new Map(tables[kindOf('Environment').table!].map((e) => [e.name as string, e.id as string]));
  return { objects, envIds, ids, sealedSecrets };
}

/** keyOf()-style keys of what exists, so references to API-created objects resolve. */
export const existingKeys = (snap: Snapshot) => new Set([...snap.ids.keys()].map((k) => {
  const [env, kind, ...name] = k.split('/');
  return `${kind}/${env}/${name.join('/')}`;
}));
