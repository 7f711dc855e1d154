import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validationError } from '../../controller/errors/app-error.js';
import type { Schema } from './schema.js';

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes, strict: false, removeAdditional: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
// Query strings are text: "limit=10" must validate as the integer 10.
// 'array': a parameter of array type given once (?cmd=ls) is a list of one; a scalar one given
// twice is refused before (assertStrictQuery)
const queryAjv = makeAjv('array');
const cache = new WeakMap<Schema, ValidateFunction>();

function compile(ajv: Ajv, schema: Schema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

const dotted = (pointer: string) => pointer.replace(/^\//, '').replace(/\//g, '.');

/** Turns ajv's first error into a VALIDATION_ERROR that names the field. */
export function toValidationError(e: ErrorObject, prefix = '') {
  const at = dotted(e.instancePath);
  const join = (name: string) => [prefix, at, name].filter(Boolean).join('.');
  if (e.keyword === 'additionalProperties') {
    const field = join(String(e.params.additionalProperty));
    return validationError(`Unknown field '${field}'`, field);
  }
  if (e.keyword === 'required') {
    const field = join(String(e.params.missingProperty));
    return validationError(`${field} is required`, field);
  }
  const field = [prefix, at].filter(Boolean).join('.') || undefined;
  if (e.keyword === 'minProperties') return validationError('The body must set at least one field', field);
  return validationError(`${field ?? 'value'} ${e.message ?? 'is invalid'}`, field);
}

/**
 * JSON.parse reads 1e999 as Infinity and query coercion turns "1e999" into it; ajv's integer and
 * range checks let Infinity through (Infinity % 1 is NaN), so it would reach SQL or timers.
 */
function assertFinite(value: unknown, at: string[] = []): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      const field = at.join('.') || undefined;
      throw validationError(`${field ?? 'value'} must be a finite number`, field);
    }
  } else if (Array.isArray(value)) value.forEach((v, i) => assertFinite(v, [...at, String(i)]));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) assertFinite(v, [...at, k]);
}

export function validateBody<T>(schema: Schema, data: unknown): T {
  const fn = compile(bodyAjv, schema);
  assertFinite(data);
  if (!fn(data)) throw toValidationError(fn.errors![0]);
  return data as T;
}

/** An integer as a query string writes it: decimal digits, no sign but a minus, no leading zero. */
const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/**
 * Query coercion reads more than a client means: "0x10" as 16, " 5" and "+5" as 5, "1e1" as 10;
 * and `limit[]=1` is a parameter of another name, silently left out. A declared parameter is
 * given once as one value (not `limit[]=…`, not twice), and an integer in decimal digits.
 */
function assertStrictQuery(properties: Record<string, Schema>, data: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(data)) {
    const bracket = key.indexOf('[');
    const name = bracket > 0 ? key.slice(0, bracket) : key;
    const schema = properties[name];
    if (!schema || schema.type === 'array') continue;
    if (bracket > 0 || Array.isArray(value)) throw validationError(`${name} must be given once, as a single value`, name);
    if (schema.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
      throw validationError(`${name} must be an integer written in decimal digits`, name);
    }
  }
}

export function validateQuery<T>(schema: Schema, data: Record<string, unknown>): T {
  assertStrictQuery((schema.properties ?? {}) as Record<string, Schema>, data);
  const fn = compile(queryAjv, schema);
  if (!fn(data)) throw toValidationError(fn.errors![0]);
  assertFinite(data);
  return data as T;
}
