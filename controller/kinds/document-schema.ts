/**
 * The draft-07 schema of a whole manifest document of one kind, built from its descriptor:
 * what the manifest loader validates with and what manifests-schema/ writes out.
 */
import type { KindDescriptor } from './kind.js';
import { name, RESERVED_LABEL_PREFIX } from './manifest-fields.js';
import { object, str, type Schema } from './schema.js';

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
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

export const schemaFileName = (kind: string) => `${kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;

/** The whole document schema of one kind (draft-07). */
export function documentSchema(def: KindDescriptor): Schema {
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
      spec: def.manifest.spec,
    }, ['apiVersion', 'kind', 'metadata', 'spec']),
  }) as Schema;
}
