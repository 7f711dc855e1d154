import type { RouteSpec } from '../http/route.js';
import { errorEnvelope, object, type Schema } from '../http/schema.js';

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_ERROR: malformed input or failed validation',
  401: 'UNAUTHORIZED: missing, invalid, expired or revoked token',
  403: 'FORBIDDEN_SCOPE or FORBIDDEN_ROLE',
  404: 'NOT_FOUND',
  409: 'CONFLICT or IDEMPOTENCY_KEY_REUSED',
  422: 'READONLY_FIELD',
  429: 'RATE_LIMITED, with Retry-After',
  500: 'INTERNAL',
  502: 'The remote endpoint did not answer 2xx',
  503: 'SERVICE_UNAVAILABLE',
};

const errorRef = { $ref: '#/components/schemas/Error' };

function statusesOf(spec: RouteSpec): number[] {
  const codes = new Set<number>(spec.errors ?? []);
  if (spec.access !== 'public') codes.add(401).add(403);
  if (spec.body || spec.query || spec.requestBody) codes.add(400);
  if (spec.readOnly?.length) codes.add(422);
  if (spec.load || /\{\w+\}/.test(spec.path)) codes.add(404);
  if (spec.method !== 'GET') codes.add(409);
  codes.add(429);
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
    const ok = spec.status ?? 200;
    const responses: Record<string, unknown> = {
      [ok]: ok === 204
        ? { description: 'No content' }
        : { description: 'Success', ...(spec.response && { content: { [spec.responseType ?? 'application/json']: { schema: spec.response } } }) },
    };
    for (const code of statusesOf(spec)) {
      responses[code] = { description: ERROR_TEXT[code] ?? 'Error', content: { 'application/json': { schema: errorRef } } };
    }
    paths[spec.path] ??= {};
    paths[spec.path][spec.method.toLowerCase()] = {
      operationId: spec.operationId,
      summary: spec.summary,
      tags: [spec.tag],
      ...(spec.access === 'public' ? { security: [] } : {}),
      'x-access': spec.scope ?? spec.access,
      ...(parameters.length && { parameters }),
      ...(spec.requestBody && { requestBody: spec.requestBody }),
      ...(spec.body && { requestBody: { required: true, content: { 'application/json': { schema: spec.body as Schema } } } }),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Stevedore API', version, description: 'Deploy containers to many servers without Kubernetes.' },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT from /api/auth/login or an svc_pat_ API token' } },
      schemas: { Error: errorEnvelope, Empty: object({}) },
      parameters: {
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
      },
    },
    paths,
  };
}
