/**
 * Building blocks shared by every manifest kind. Field schemas are written in the API's
 * OpenAPI 3.0 dialect (api/http/schema.ts) so they can be reused as they are; `toDraft7`
 * turns `nullable` into type arrays when the kind's schema is assembled.
 */
import { object, str, type Schema } from '../../api/http/schema.js';

export type { Schema };

/** Names of objects, as the API's environment names: also how manifests refer to each other. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
export const name = (description: string): Schema => str({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN, description });
/** Keys of vars and secrets, as the API's. */
export const KEY_PATTERN = '^[A-Z_][A-Z0-9_]*$';
export const RESERVED_LABEL_PREFIX = 'stevedore.';

/** `valueFrom`: where the controller reads a secret value at apply time; never the value itself. */
export const valueFrom: Schema = object({
  env: str({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Environment variable of the controller process' }),
  file: str({ minLength: 1, maxLength: 1000, description: 'File path, relative to the manifests folder or absolute' }),
}, [], { minProperties: 1, maxProperties: 1, description: 'Exactly one of env or file' });

export const secretRef = (description: string): Schema =>
  object({ valueFrom }, ['valueFrom'], { description: `${description} (write-only; read from valueFrom)` });

export interface KindDefinition {
  kind: string;
  description: string;
  /** False for Environment, whose metadata names no environment. */
  namespaced: boolean;
  /** Overrides the metadata.name rule (vars and secrets are named by their key). */
  namePattern?: string;
  spec: Schema;
}

const labels: Schema = {
  type: 'object',
  description: `Free-form labels; keys starting with "${RESERVED_LABEL_PREFIX}" are reserved and rejected`,
  propertyNames: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$' },
  additionalProperties: { type: 'string', maxLength: 500 },
  maxProperties: 50,
};

/** Recursively rewrites the OpenAPI `nullable: true` into draft-07 `type: [t, "null"]`. */
export function toDraft7(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toDraft7);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    out[k] = k === 'properties' || k === 'definitions'
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, s]) => [p, toDraft7(s)]))
      : k === 'enum' || k === 'required' || k === 'default' || k === 'examples' ? v : toDraft7(v);
  }
  if (nullable && typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

/** The whole document schema of one kind (draft-07). */
export function documentSchema(def: KindDefinition): Schema {
  const metadata = object({
    name: def.namePattern ? str({ minLength: 1, maxLength: 100, pattern: def.namePattern, description: 'Name (the key)' }) : name('Name, unique per kind in its environment'),
    ...(def.namespaced && { environment: name('Name of the Environment this object belongs to') }),
    labels,
  }, def.namespaced ? ['name', 'environment'] : ['name']);
  return toDraft7({
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `https://stevedore.dev/manifests-schema/${def.kind.toLowerCase()}.schema.json`,
    title: def.kind,
    description: def.description,
    ...object({
      apiVersion: { type: 'string', const: 'stevedore/v1' },
      kind: { type: 'string', const: def.kind },
      metadata,
      spec: def.spec,
    }, ['apiVersion', 'kind', 'metadata', 'spec']),
  }) as Schema;
}
