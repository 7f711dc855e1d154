import fs from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks an answer of the API against the OpenAPI document the service itself serves: the status
 * is declared for the operation, the content type is one the document names, and the body
 * validates against that response's schema. Every API test's request goes through it (see
 * http-client.ts), so a response the document does not describe fails the test that received it.
 *
 * Stricter than a plain JSON Schema check on one point: an object schema that lists its
 * properties and says nothing about others is read as closed, so a field the document never
 * mentions (a strict client would drop or reject it) is a mismatch too.
 */

type Schema = Record<string, unknown>;
interface Operation { method: string; path: string; pattern: RegExp; responses: Record<string, { content?: Record<string, { schema?: Schema }> }> }
interface Answer { method: string; url: string; status: number; contentType: string | null; body: unknown; hasBody: boolean }

const DOC_ID = 'openapi.json';
// What the middleware answers before any route is matched (unknown path, wrong method, auth, limits).
const UNROUTED_STATUSES = new Set([401, 403, 404, 405, 413, 415, 429]);

const isObject = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

/** Local refs point into the document, which ajv holds under DOC_ID. */
function rebaseRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebaseRefs);
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? DOC_ID + v : rebaseRefs(v);
  return out;
}

/** Reads an object schema that lists properties and is silent about others as closed. */
function closeSchema(schema: unknown): void {
  if (!isObject(schema)) return;
  if (isObject(schema.properties)) {
    if (schema.additionalProperties === undefined) schema.additionalProperties = false;
    Object.values(schema.properties).forEach(closeSchema);
  }
  if (isObject(schema.additionalProperties)) closeSchema(schema.additionalProperties);
  closeSchema(schema.items);
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) if (Array.isArray(schema[k])) (schema[k] as unknown[]).forEach(closeSchema);
}

const mediaType = (contentType: string | null) => contentType?.split(';')[0].trim().toLowerCase() ?? null;

class DocumentCheck {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly sameSchema = new Map<string, ValidateFunction>();

  constructor(document: Schema) {
    (addFormats as unknown as (a: Ajv) => void)(this.ajv);
    const doc = rebaseRefs(structuredClone(document)) as Schema & { paths: Record<string, Record<string, Operation['responses'] & Schema>>; components?: { schemas?: Record<string, Schema> } };
    Object.values(doc.components?.schemas ?? {}).forEach(closeSchema);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components }, undefined, undefined, false);
    for (const [path, ops] of Object.entries(doc.paths)) {
      // koa-router's `:param` matches one segment
      const pattern = new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+') + '$');
      for (const [method, op] of Object.entries(ops)) {
        if (!isObject(op) || !isObject(op.responses)) continue;
        for (const response of Object.values(op.responses as Schema)) {
          for (const media of Object.values((response as { content?: Record<string, { schema?: Schema }> }).content ?? {})) closeSchema(media.schema);
        }
        this.operations.push({ method: method.toUpperCase(), path, pattern, responses: op.responses as Operation['responses'] });
      }
    }
  }

  /** The operation the router would run: the first declared one whose path and method match. */
  private operationOf(method: string, pathname: string): Operation | undefined {
    return this.operations.find((op) => op.method === method && op.pattern.test(pathname));
  }

  /** Compiled once per response; responses with the same schema (every error: the envelope) share one. */
  private validator(key: string, schema: Schema): ValidateFunction {
    let fn = this.validators.get(key);
    if (!fn) {
      const text = JSON.stringify(schema);
      fn = this.sameSchema.get(text) ?? this.ajv.compile(schema);
      this.sameSchema.set(text, fn);
      this.validators.set(key, fn);
    }
    return fn;
  }

  private bodyErrors(key: string, schema: Schema | undefined, answer: Answer): string[] {
    if (!schema) return [];
    const validate = this.validator(key, schema);
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` '${String(e.params.additionalProperty)}'` : '';
      return `body${e.instancePath || ''} ${e.message ?? e.keyword}${extra}`;
    });
  }

  /** The mismatches between one answer and the document (none: it is described). */
  check(answer: Answer): string[] {
    const { pathname } = new URL(answer.url);
    if (!pathname.startsWith('/api/') && pathname !== '/health') return []; // the web UI and /mcp are not this document's
    const op = this.operationOf(answer.method, pathname);
    if (!op) {
      if (!UNROUTED_STATUSES.has(answer.status)) return [`${answer.status} for a path and method the document does not have`];
      return this.bodyErrors('#Error', { $ref: `${DOC_ID}#/components/schemas/Error` }, answer);
    }
    const where = `${op.method} ${op.path}`;
    const response = op.responses[String(answer.status)] ?? op.responses.default;
    if (!response) return [`status ${answer.status} is not declared for ${where} (declared: ${Object.keys(op.responses).join(', ')})`];
    const declared = response.content ?? {};
    if (!Object.keys(declared).length) return answer.hasBody ? [`${where} ${answer.status} declares no body but one was sent (${answer.contentType})`] : [];
    if (!answer.hasBody) return [`${where} ${answer.status} declares a body but none was sent`];
    const media = mediaType(answer.contentType);
    if (!media || !declared[media]) {
      return [`${where} ${answer.status} answered content type ${answer.contentType} (declared: ${Object.keys(declared).join(', ')})`];
    }
    if (answer.body === undefined) return []; // not read (a stream or binary download): status and type only
    return this.bodyErrors(`${where} ${answer.status} ${media}`, declared[media].schema, answer);
  }
}

const byDocument = new Map<string, DocumentCheck>();
const byBaseUrl = new Map<string, Promise<DocumentCheck>>();

/** The check for a running service, from the document it serves (fetched once per service, compiled once per document). */
function checkFor(baseUrl: string): Promise<DocumentCheck> {
  let check = byBaseUrl.get(baseUrl);
  if (!check) {
    check = (async () => {
      const res = await fetch(`${baseUrl}/api/openapi.json`);
      if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
      const text = await res.text();
      let c = byDocument.get(text);
      if (!c) byDocument.set(text, (c = new DocumentCheck(JSON.parse(text) as Schema)));
      return c;
    })();
    byBaseUrl.set(baseUrl, check);
    check.catch(() => byBaseUrl.delete(baseUrl));
  }
  return check;
}

/**
 * Fetches the service's document now, always with exactly one request (a rate-limit test counts
 * requests after it): a cached check may belong to an earlier service that had the same port.
 */
export async function loadDocument(baseUrl: string): Promise<void> {
  byBaseUrl.delete(baseUrl);
  await checkFor(baseUrl);
}

export class OpenApiMismatch extends Error {
  override name = 'OpenApiMismatch';
}

/**
 * Throws when the answer is not what the service's OpenAPI document says. `body` undefined: the
 * body was not read (streams, downloads), only status and content type are checked.
 */
export async function assertDocumented(baseUrl: string, answer: Answer): Promise<void> {
  const problems = (await checkFor(baseUrl)).check(answer);
  if (!problems.length) return;
  const message = `${answer.method} ${new URL(answer.url).pathname} → ${answer.status} does not match the OpenAPI document:\n  ${problems.join('\n  ')}`;
  // Surveying a whole run: collect every mismatch in a file instead of failing at the first.
  if (process.env.OPENAPI_MISMATCH_LOG) fs.appendFileSync(process.env.OPENAPI_MISMATCH_LOG, message + '\n');
  else throw new OpenApiMismatch(message);
}
 
/**
 * fetch() for tests that need the raw Response (multipart uploads, downloads, streams): the same
 * check as HttpClient. A JSON answer is read from a clone; other bodies only by the caller.
 */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const { origin } = new URL(url);
  const contentType = res.headers.get('content-type');
  const json = mediaType(contentType) === 'application/json';
  let body: unknown;
  if (json) {
    const text = await res.clone().text();
    body = text ? JSON.parse(text) : null;
  }
  await assertDocumented(origin, {
    method: (init.method ?? 'GET').toUpperCase(), url, status: res.status, contentType, body,
    hasBody: json ? body !== null : res.headers.get('content-length') !== '0' && res.status !== 204,
  });
  return res;
}
