import getRawBody from 'raw-body';
import { validationError } from '../../controller/errors/app-error.js';
import { isJsonType } from '../http/content-type.js';
import type { Ctx } from '../http/types.js';

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Objects and arrays nested deeper than this are refused before anything walks them. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of objects and arrays in JSON text, by one pass over the bytes (brackets
 * inside strings do not count): no recursion, so a 1 MiB body of `[[[[…` costs one loop.
 */
export function jsonDepth(text: Buffer): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The path of the first string (key or value) holding a NUL character, which PostgreSQL text cannot store. */
function nulPath(v: unknown, at: string, depth = 0): string | null {
  if (typeof v === 'string') return v.includes('\0') ? at || 'body' : null;
  if (!v || typeof v !== 'object' || depth > 64) return null;
  for (const [k, x] of Object.entries(v)) {
    const here = at ? `${at}.${k}` : k;
    if (k.includes('\0')) return here;
    const found = nulPath(x, here, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Reads JSON bodies with a size limit and keeps the exact bytes in ctx.request.rawBody (incoming
 * webhooks sign those bytes). A body without a JSON content type (none at all, a form, a multipart
 * upload) is left unread: a route that takes a JSON body answers it 415 (api/http/mount.ts), an
 * upload or a signed webhook reads its own.
 */
export function jsonBody(limit = '1mb') {
  const read = async (ctx: Ctx, next: () => Promise<unknown>) => {
    const raw = await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined });
    ctx.request.rawBody = raw;
    if (raw.length > 0) {
      if (jsonDepth(raw) > MAX_JSON_DEPTH) throw validationError(`The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      try {
        ctx.request.body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw validationError('The request body is not valid JSON');
      }
      const bad = nulPath(ctx.request.body, '');
      if (bad) throw validationError('Text must not contain NUL (\\u0000) characters', bad);
    }
    await next();
  };
  // not async: requests without a JSON body pass through without a promise of their own
  return function jsonBodyMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    if (!WITH_BODY.has(ctx.method) || !isJsonType(ctx.request.type)) return next();
    return read(ctx, next);
  };
}
