import type { RouteSpec } from '../http/route.js';
import { errorEnvelope, type Schema } from '../http/schema.js';
import { TAGS } from './tags.js';
import { accessText, actsIn } from '../http/authorize.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR: malformed input or failed validation',
  401: 'UNAUTHORIZED: missing, invalid, expired or revoked token',
  403: 'FORBIDDEN_SCOPE or FORBIDDEN_ROLE',
  404: 'NOT_FOUND',
  409: 'CONFLICT or IDEMPOTENCY_KEY_REUSED',
  413: 'VALIDATION_ERROR: the request body is larger than the limit',
  415: 'VALIDATION_ERROR: the request body has no content type, or one the operation does not read (send application/json)',
  422: 'READONLY_FIELD',
  429: 'RATE_LIMITED, with Retry-After',
  500: 'INTERNAL: an unexpected failure; the response says nothing of internals',
  502: 'The remote endpoint did not answer 2xx',
  503: 'SERVICE_UNAVAILABLE: the database (or a server the call needs) cannot be reached; Retry-After says when to try again',
};

const errorRef = { $ref: '#/components/schemas/Error' };
const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function content(schema: Schema | undefined, type = 'application/json') {
  return schema ? { content: { [type]: { schema } } } : {};
}

function statusesOf(spec: RouteSpec): number[] {
  const codes = new Set<number>(spec.errors ?? []);
  if (spec.access !== 'public') codes.add(401).add(403);
  // writes without a body schema refuse body fields (mount.ts) and signed webhooks validate their own
  if (spec.body || spec.query || spec.requestBody || WRITE.has(spec.method)) codes.add(400);
  if (spec.body) codes.add(413).add(415);
  if (spec.readOnly?.length) codes.add(422);
  if (spec.load || /\{\w+\}/.test(spec.path)) codes.add(404);
  if (spec.method !== 'GET') codes.add(409);
  // any operation can fail unexpectedly (INTERNAL, in the envelope, details only in the log), and any
  // can find the database down for a while (SERVICE_UNAVAILABLE): a client must be ready for both
  codes.add(429).add(500).add(503);
  return [...codes].sort();
}

/** The OpenAPI 3.0.3 document, generated from the same route specs that validate requests. */
export function buildOpenApi(specs: RouteSpec[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const parameters: unknown[] = [...spec.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name, in: 'path', required: true, schema: { type: 'string' },
    }));
    for (const [name, schema] of Object.entries(spec.query ?? {})) parameters.push({ name, in: 'query', required: false, schema });
    // Writes by a signed-in caller may carry Idempotency-Key (api/middleware/idempotency.ts).
    if (WRITE.has(spec.method) && spec.access !== 'public') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    const ok = spec.status ?? 200;
    const responses: Record<string, unknown> = {
      [ok]: ok === 204 ? { description: 'No content' } : { description: 'Success', ...content(spec.response, spec.responseType) },
    };
    for (const [code, also] of Object.entries(spec.alsoAnswers ?? {})) {
      responses[code] = { description: also.description, ...content(also.response, also.responseType) };
    }
    for (const code of statusesOf(spec)) {
      if (responses[code]) continue; // the route describes this answer itself (alsoAnswers)
      responses[code] = { description: ERROR_TEXT[code] ?? 'Error', content: { 'application/json': { schema: errorRef } } };
    }
    if (!TAGS[spec.tag]) throw new Error(`${spec.operationId}: tag '${spec.tag}' is not declared in api/openapi/tags.ts (nor by a kind descriptor's api)`);
    paths[spec.path] ??= {};
    paths[spec.path][spec.method.toLowerCase()] = {
      operationId: spec.operationId,
      summary: spec.summary,
      description: [spec.description, accessText(spec)].filter(Boolean).join('\n\n'),
      tags: [spec.tag],
      ...(spec.access === 'public' ? { security: [] } : {}),
      'x-access': spec.scope ?? spec.access,
      // where the caller must hold the role (controller/auth/policy.ts), whether an
      // environment-limited token may call it without an {envId}, who may call it as themselves
      ...(spec.access !== 'public' && { 'x-acts-in': actsIn(spec) }),
      ...(typeof spec.actsIn === 'function' && actsIn(spec) !== 'request' && { 'x-acts-in-also': 'request' }),
      ...(spec.envExempt && { 'x-environment-limited': 'answered' }),
      ...(spec.self && { 'x-self': spec.self.param }),
      ...(spec.identity && { 'x-identity': 'another identity needs an unrestricted admin' }),
      ...(parameters.length && { parameters }),
      ...(spec.requestBody && { requestBody: spec.requestBody }),
      ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: spec.body as Schema } } } }),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Stevedore API', version, description: 'Deploy containers to many servers without Kubernetes.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: '/' }],
    tags: Object.entries(TAGS).filter(([name]) => specs.some((spec) => spec.tag === name)).map(([name, description]) => ({ name, description })),
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT from /api/auth/login or an svc_pat_ API token' } },
      schemas: { Error: errorEnvelope },
      parameters: {
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
      },
    },
    paths,
  };
}
