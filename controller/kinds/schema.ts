/**
 * Field schemas are written once, in the OpenAPI 3.0.3 dialect of JSON Schema (nullable instead
 * of type arrays), and serve ajv validation of API bodies, the OpenAPI document and (turned into
 * draft-07 by controller/kinds/document-schema.ts) the manifest schemas. Pure builders only:
 * the kind descriptors, the settings modules and api/http all import them from here.
 */
export type Schema = Record<string, unknown>;

/**
 * The largest value of PostgreSQL's `integer`: request integers that have no tighter bound stop
 * here, so a client's 2^63 is a VALIDATION_ERROR rather than a database error.
 */
export const INT32_MAX = 2_147_483_647;

export const uuid: Schema = { type: 'string', format: 'uuid' };
export const timestamp: Schema = { type: 'string', format: 'date-time' };
export const nullableTimestamp: Schema = { type: 'string', format: 'date-time', nullable: true };
export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const nonEmpty = (maxLength = 255, extra: Schema = {}): Schema => ({ type: 'string', minLength: 1, maxLength, ...extra });
export const bool: Schema = { type: 'boolean' };
export const int = (minimum?: number, maximum?: number, extra: Schema = {}): Schema => ({
  type: 'integer', ...(minimum !== undefined && { minimum }), ...(maximum !== undefined && { maximum }), ...extra,
});
/** OpenAPI 3.0.3: `nullable` does not widen an `enum`, so null joins the listed values too. */
export const nullable = (s: Schema): Schema => ({
  ...s, nullable: true, ...(Array.isArray(s.enum) && !s.enum.includes(null) && { enum: [...s.enum, null] }),
});
export const arrayOf = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const stringMap = (maxProperties = 200): Schema => ({
  type: 'object', additionalProperties: { type: 'string', maxLength: 65536 }, maxProperties,
});
export const enumOf = (...values: string[]): Schema => ({ type: 'string', enum: values });

export function object(properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema {
  return { type: 'object', properties, required: required.length ? required : undefined, additionalProperties: false, ...extra };
}

/** A status condition as controller/model/conditions.ts keeps them (Kubernetes-style). */
export const condition: Schema = object({
  type: enumOf('Ready', 'Progressing', 'Degraded', 'Drifted', 'UpdateAvailable'), status: enumOf('True', 'False', 'Unknown'),
  reason: str(), message: str(), lastTransitionTime: timestamp,
}, ['type', 'status', 'reason', 'message']);

export interface ResourceSchemas {
  /** Body of create: the writable fields, `required` enforced, defaults filled in. */
  create: Schema;
  /** Body of update: the writable fields, all optional. */
  update: Schema;
  /** What reads return. */
  read: Schema;
  /** Fields a client may see but never write: supplying one is 422 READONLY_FIELD. */
  readOnly: string[];
  /** When update refuses more fields than create (a var's key is fixed once created). */
  updateReadOnly?: string[];
}

/** Builds the create/update/read schemas of one resource from its writable and read-only fields. */
export function resourceSchemas(opts: {
  writable: Record<string, Schema>;
  readOnly: Record<string, Schema>;
  required?: string[];
  /** Write-only fields (secrets): accepted on writes, never in reads. */
  writeOnly?: string[];
}): ResourceSchemas {
  const writeOnly = new Set(opts.writeOnly ?? []);
  const stripDefaults = (s: Schema): Schema => {
    const { default: _d, ...rest } = s;
    return rest;
  };
  // a write-only field says so in the schema (OpenAPI `writeOnly`): the dashboard draws it as a password input
  const writable = Object.fromEntries(Object.entries(opts.writable).map(([k, v]) => [k, writeOnly.has(k) ? { ...v, writeOnly: true } : v]));
  const updateProps = Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, stripDefaults(v)]));
  const readProps: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(opts.writable)) if (!writeOnly.has(k)) readProps[k] = stripDefaults(v);
  for (const [k, v] of Object.entries(opts.readOnly)) readProps[k] = { ...v, readOnly: true };
  return {
    create: object(writable, opts.required ?? []),
    update: object(updateProps, [], { minProperties: 1 }),
    read: { type: 'object', properties: readProps },
    readOnly: Object.keys(opts.readOnly),
  };
}
