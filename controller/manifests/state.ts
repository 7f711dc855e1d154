import { KIND_NAMES } from '../kinds/index.js';

/**
 * The comparable form of an object, built both from manifests (desired) and from the store
 * (actual): API field names, references by name, secrets as digests. The diff compares these.
 */
export interface ManifestSource {
  kind: 'manifest';
  path: string;
  revision: string;
  /** The name the manifest gave (ContainerImage rows have no name column). */
  name?: string;
  /** Fields this manifest sets: the API refuses to change them (409). */
  fields: string[];
  labels?: Record<string, string>;
  /**
   * Which source applied it: absent for the manifests folder and the API's apply, `git:<environment id>`
   * for an environment's Git source. A source prunes only what it applied itself.
   */
  origin?: string;
  /** The Git repository (URL without credentials) of a Git source; `revision` is then its commit. */
  repository?: string;
}

export interface ObjectState {
  kind: string;
  environment?: string;
  /** Identity inside kind + environment (a ContainerImage's is its imageName). */
  name: string;
  fields: Record<string, unknown>;
  /** Desired only: plain secret values, by field, to seal at apply time; never diffed or shown. */
  secretValues?: Record<string, string>;
  /** Desired only: plain values of the kind's sealedMaps, by field, to seal at apply time. */
  sealedMapValues?: Record<string, Record<string, string>>;
  /** Desired: where it comes from; actual: the row's source when it came from a manifest. */
  source?: ManifestSource;
  /** Actual only. */
  id?: string;
  environmentId?: string;
}

export type ChangeAction = 'create' | 'update' | 'delete' | 'orphan';

export interface FieldChange { field: string; from?: unknown; to?: unknown; secret?: boolean }

export interface Change {
  action: ChangeAction;
  kind: string;
  environment?: string;
  name: string;
  /** The manifest file (for delete and orphan: the file the object came from). */
  path: string;
  fields: FieldChange[];
  /** True when only ownership (source path, owned fields, labels) changes. */
  sourceOnly?: boolean;
}

/** Apply order: what others refer to first (the order of controller/kinds/index.ts). Deletions run in the reverse order. */
export const KIND_ORDER = KIND_NAMES;

export const stateKey = (o: { kind: string; environment?: string; name: string }) => `${o.kind}/${o.environment ?? '-'}/${o.name}`;
