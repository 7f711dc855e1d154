import { z } from 'zod';
import type { Schema } from '../http/schema.js';

/** Keywords zod has no check for; they still reach the agent in the listed schema, and the API checks them. */
const ADVERTISED = ['format', 'description', 'default'] as const;

function advertised(s: Schema): Record<string, unknown> | null {
  const meta: Record<string, unknown> = {};
  for (const k of ADVERTISED) if (s[k] !== undefined) meta[k] = s[k];
  return Object.keys(meta).length ? meta : null;
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/**
 * A route's JSON Schema (the OpenAPI 3.0.3 dialect of api/http/schema.ts) as the zod schema the
 * MCP SDK wants for a tool input. The route's own validation still runs on the replayed call, so
 * what zod cannot say (formats, defaults) is only advertised, never a second rule.
 */
export function zodOf(s: Schema): z.ZodType {
  let t: z.ZodType;
  const values = s.enum as unknown[] | undefined;
  if (values && values.length && values.every((v) => typeof v === 'string')) {
    t = z.enum(values as [string, ...string[]]);
  } else if (s.type === 'string') {
    let x = z.string();
    if (num(s.minLength) !== undefined) x = x.min(num(s.minLength)!);
    if (num(s.maxLength) !== undefined) x = x.max(num(s.maxLength)!);
    if (typeof s.pattern === 'string') x = x.regex(new RegExp(s.pattern, 'u'));
    t = x;
  } else if (s.type === 'integer' || s.type === 'number') {
    let x = s.type === 'integer' ? z.number().int() : z.number();
    if (num(s.minimum) !== undefined) x = x.min(num(s.minimum)!);
    if (num(s.maximum) !== undefined) x = x.max(num(s.maximum)!);
    t = x;
  } else if (s.type === 'boolean') {
    t = z.boolean();
  } else if (s.type === 'array') {
    let x = z.array(s.items ? zodOf(s.items as Schema) : z.unknown());
    if (num(s.minItems) !== undefined) x = x.min(num(s.minItems)!);
    if (num(s.maxItems) !== undefined) x = x.max(num(s.maxItems)!);
    t = x;
  } else if (s.type === 'object' && s.properties) {
    t = objectOf(s);
  } else if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
    t = z.record(z.string(), zodOf(s.additionalProperties as Schema));
  } else if (s.type === 'object') {
    t = z.record(z.string(), z.unknown());
  } else {
    t = z.unknown();
  }
  if (s.nullable) t = t.nullable();
  const meta = advertised(s);
  return meta ? t.meta(meta) : t;
}

/** An object schema: its required properties required, the others optional, unknown ones refused. */
export function objectOf(s: Schema): z.ZodObject {
  const required = new Set((s.required as string[] | undefined) ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, prop] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
    shape[name] = required.has(name) ? zodOf(prop) : zodOf(prop).optional();
  }
  return z.strictObject(shape);
}
