/**
 * What a kind is, written once: where its objects are stored, which fields it has and their
 * schemas (API bodies and reads, manifest spec), which of them are secrets and which name other
 * objects. The API routes, the OpenAPI document, manifests-schema/, the manifest loader
 * (controller/manifests/) and its writer read these descriptors; none restates a field list.
 */
import type { ResourceSchemas, Schema } from './schema.js';

/** A field that names another object: by name in manifests, by id in the store and the API. */
export interface Reference {
  /** Where in a manifest's spec; `*` stands for every item of an array: 'deployments.*.server'. */
  path: string;
  kind: string;
  /** The column of this kind's table that holds the id (the API field of the same name). */
  column?: string;
}

/** A write-only field: read from valueFrom in manifests, sealed at rest, never in reads. */
export interface SecretField {
  field: string;
  /** The column holding the sealed value. */
  column: string;
  /** Where the valueFrom mapping is under spec; default [field, 'valueFrom']. */
  valueFrom?: string[];
  /** A reason the value is unusable, so a bad value is an error of the folder, not of a later deploy. */
  check?(value: string): string | null;
  /** More columns derived from the value (an SSH key's public half and fingerprint). */
  derived?(value: string): Record<string, unknown>;
}

/** A reference found in a manifest, with the document path it was found at. */
export interface FoundReference { kind: string; name: string; path: string[] }

/** What the manifest writer and the snapshot pass to a kind's own mapping functions. */
export interface ActualContext {
  /** The name (identity) of an object by its id, as manifests refer to it. */
  nameOf(kind: string, id: string | null | undefined): string | null;
  /**
   * Rows of a relation table the manifest kinds use (loaded once per snapshot) whose `column`
   * is `id`: looked up in an index built once per table and column, as every row asks.
   */
  relatedOf(table: string, column: string, id: string): any[];
}

/** How manifests read and write objects of a kind. */
export interface ManifestMapping {
  /** The `spec` of a manifest document (OpenAPI dialect; manifests-schema/ turns it into draft-07). */
  spec: Schema;
  /** Spec fields stored in columns of the same name and compared as they are. */
  columns?: string[];
  /** What the store holds for an optional field a manifest leaves out. */
  defaults?: Record<string, unknown>;
  /** The spec field naming the object in the store, when metadata.name does not (ContainerImage: imageName). */
  identity?: string;
  /**
   * Spec fields written to other tables after the row (a service's deployments), or prefixes
   * ending in '.' of flattened ones (an environment's 'settings.'): not columns of the row.
   */
  relations?: string[];
  /** The comparable fields of a manifest, when not just {...defaults, ...spec} (normalised lists). */
  desired?(spec: Record<string, any>, name: string): Record<string, unknown>;
  /** Comparable fields read from related rows (the snapshot), added to those of the row's columns. */
  actual?(row: Record<string, any>, ctx: ActualContext): Record<string, unknown>;
  /**
   * Rules of a spec its schema cannot say (a cron expression that parses), checked when a folder
   * is validated: each problem names the spec field (path under `spec`).
   */
  problems?(spec: Record<string, any>): { path: string[]; message: string }[];
  /** References that are not a field naming a kind (a config file's ${fragment:NAME} includes). */
  referencesIn?(spec: Record<string, any>): FoundReference[];
  /** Settings read from the environment when a manifest leaves a column out: column -> [module, field]. */
  environmentDefaults?: Record<string, [string, string]>;
  /**
   * Columns for a spec field that is neither a column as it is nor a `references` entry (a
   * connection's end `{kind, name}` becomes a kind and an id column); undefined: the default.
   */
  write?(field: string, value: unknown, idOf: (kind: string, name: string) => string): Record<string, unknown> | undefined;
}

/**
 * A kind served by the generic CRUD routes (api/routes/kind-crud.ts): list with pagination,
 * create, get, update, delete, all from `schemas`.
 */
export interface KindApi {
  /** The URL segment, plural kebab: 'external-entities' (items at /api/external-entities/{id}); also the tag and audit resourceType. */
  path: string;
  /**
   * Where the collection is: 'environment' (default) at /api/environments/{envId}/<path>;
   * 'query' at /api/<path>?environmentId= with `environmentId` in the create body.
   */
  collection?: 'environment' | 'query';
  /** The description of its OpenAPI tag (named `path`); default: the kind's `description`. */
  tagDescription?: string;
}

export interface KindDescriptor {
  kind: string;
  /** Shown in docs/manifests.md and the manifest schema. */
  description: string;
  /** False for Environment, whose manifests name no environment. */
  namespaced: boolean;
  /** Overrides the metadata.name rule (vars and secrets are named by their key). */
  namePattern?: string;
  /** The table holding its objects; absent: manifests declare it, nothing applies it yet. */
  table?: string;
  /** The column holding its name; null when a field is its identity (manifest.identity). Default 'name'. */
  nameColumn?: string | null;
  /** Whether its table has a generation column, bumped by every change. Default true. */
  versioned?: boolean;
  /** The API's bodies and reads of it. */
  schemas?: ResourceSchemas;
  /** Columns stored as JSON text. */
  jsonColumns?: string[];
  secrets?: SecretField[];
  /**
   * String-map columns whose values are write-only (a webhook's custom headers): stored sealed
   * per value, compared by digest, never shown; the names stay visible.
   */
  sealedMaps?: string[];
  references?: Reference[];
  manifest: ManifestMapping;
  /**
   * A rule across fields (the whole object as stored, or as a manifest declares it): the field to
   * blame and why, or null. The API answers VALIDATION_ERROR and a manifest folder fails with it.
   */
  problem?(fields: Record<string, any>): { field: string; message: string } | null;
  /** Served by the generic CRUD routes; absent: the kind has its own route file. */
  api?: KindApi;
}

export const nameColumnOf = (k: KindDescriptor): string | null => (k.nameColumn === undefined ? 'name' : k.nameColumn);
export const isVersioned = (k: KindDescriptor): boolean => k.versioned ?? true;
