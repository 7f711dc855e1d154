// A form's value checked against the API's JSON schema, as the API's validator (Ajv) checks it,
// and field names as labels. Pure: imported by the forms and by the unit test that holds this
// validator's verdicts to Ajv's over every request body schema of the API.
/** The JSON schema keywords the API's schemas use (OpenAPI 3.0 dialect: `nullable`). */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  nullable?: boolean;
  readOnly?: boolean;
  /** Taken by the API, never answered (a password, a token): drawn as a password input, never filled in. */
  writeOnly?: boolean;
  minLength?: number; maxLength?: number; pattern?: string; format?: string;
  minimum?: number; maximum?: number;
  minItems?: number; maxItems?: number; uniqueItems?: boolean;
  minProperties?: number; maxProperties?: number;
  description?: string;
  default?: unknown;
  /** Values a text field offers as it is typed in (not a rule: the pattern decides). */
  'x-suggestions'?: string[];
  oneOf?: Schema[];
  $ref?: string;
}

const ACRONYMS: Record<string, string> = { cpu: 'CPU', ssh: 'SSH', tcp: 'TCP', url: 'URL', id: 'ID', ids: 'IDs', fds: 'file handles', sec: '(s)', ms: '(ms)', tls: 'TLS', smtp: 'SMTP' };

/** A field's label from its name: 'sshPort' → 'SSH port', 'drainSec' → 'Drain (s)'. */
export function humanize(name: string): string {
  // a field naming other objects by id reads as what it names: containerImageId → 'Container image'
  if (/[a-z]Ids?$/.test(name)) name = name.replace(/Id(s?)$/, '$1');
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[\s_]+/).map((w) => ACRONYMS[w] ?? w);
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export interface FieldError { path: string; message: string }

const FORMATS: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/,
};

/**
 * The value checked against the schema, as the API's validator would (the keywords its schemas
 * use): each problem with the path of its field ('healthCheck.test', 'env.KEY'). Ajv itself cannot
 * run here: it compiles validators with `new Function`, which the page's Content-Security-Policy
 * forbids; whatever this misses, the API's 400 names the field and the form shows it there
 * (test/unit/dashboard/validate.test.ts compares the two).
 */
export function validate(schema: Schema, value: unknown, path = ''): FieldError[] {
  const out: FieldError[] = [];
  const err = (message: string) => out.push({ path, message: `${humanize(path.split('.').pop() || 'value')} ${message}` });
  if (value === null) { if (!schema.nullable && schema.type) err('may not be empty'); return out; }
  if (value === undefined) return out;
  if (schema.enum && !schema.enum.includes(value)) err(`must be one of ${schema.enum.filter((v) => v !== null).join(', ')}`);
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') { err('must be text'); break; }
      if (schema.minLength !== undefined && value.length < schema.minLength) err(schema.minLength === 1 ? 'is required' : `must have at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined && value.length > schema.maxLength) err(`must have at most ${schema.maxLength} characters`);
      if (schema.pattern && !pattern(schema.pattern).test(value)) err(`must match ${schema.pattern}`);
      if (schema.format && FORMATS[schema.format] && !FORMATS[schema.format].test(value)) err(`must be a valid ${schema.format}`);
      break;
    }
    case 'integer': case 'number': {
      if (typeof value !== 'number' || Number.isNaN(value)) { err('must be a number'); break; }
      if (schema.type === 'integer' && !Number.isInteger(value)) err('must be a whole number');
      if (schema.minimum !== undefined && value < schema.minimum) err(`must be at least ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) err(`must be at most ${schema.maximum}`);
      break;
    }
    case 'boolean': if (typeof value !== 'boolean') err('must be yes or no'); break;
    case 'array': {
      if (!Array.isArray(value)) { err('must be a list'); break; }
      if (schema.minItems !== undefined && value.length < schema.minItems) err(`needs at least ${schema.minItems} item(s)`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) err(`may have at most ${schema.maxItems} items`);
      if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) err('has the same item twice');
      if (schema.items) value.forEach((v, i) => out.push(...validate(schema.items!, v, `${path}.${i}`)));
      break;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) { err('must be an object'); break; }
      const v = value as Record<string, unknown>;
      const keys = Object.keys(v).filter((k) => v[k] !== undefined);
      for (const r of schema.required ?? []) if (v[r] === undefined) out.push({ path: join(path, r), message: `${humanize(r)} is required` });
      if (schema.minProperties !== undefined && keys.length < schema.minProperties) err('has nothing to change');
      if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) err(`may have at most ${schema.maxProperties} entries`);
      for (const k of keys) {
        const sub = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        if (sub) out.push(...validate(sub, v[k], join(path, k)));
        else if (schema.additionalProperties === false && schema.properties) out.push({ path: join(path, k), message: `${humanize(k)} is not a field here` });
      }
      break;
    }
  }
  return out;
}

// the API's validator reads patterns with the u flag; a pattern written for the other dialect still checks
const pattern = (p: string) => { try { return new RegExp(p, 'u'); } catch { return new RegExp(p); } };

const join = (a: string, b: string) => (a ? `${a}.${b}` : b);
