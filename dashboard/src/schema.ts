// The API's own JSON schemas, read from its OpenAPI document (the schemas each route validates
// its body with, generated from the kind descriptors): the forms are drawn from them and checked
// with them before a request is sent. A field or a kind added on the server shows up here with no
// change to the dashboard.
import { get } from './api';
import type { Schema } from './validate';

export type { Schema };


export interface Operation { id: string; method: string; path: string; summary?: string; body?: Schema; response?: Schema }

interface Document { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } }

let doc: Promise<Map<string, Operation>> | undefined;

/** Every operation of the API by operationId, with its body and success schemas ($ref resolved). */
export function operations(signal?: AbortSignal): Promise<Map<string, Operation>> {
  doc ??= get<Document>('/api/openapi.json', signal).then(index, (err) => { doc = undefined; throw err; });
  return doc;
}

function index(d: Document): Map<string, Operation> {
  const resolve = (s: any): any => {
    if (!s || typeof s !== 'object') return s;
    if (Array.isArray(s)) return s.map(resolve);
    if (typeof s.$ref === 'string') return resolve(d.components?.schemas?.[s.$ref.split('/').pop()!]);
    return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, resolve(v)]));
  };
  const ops = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!op?.operationId) continue;
      const ok = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1] as any;
      ops.set(op.operationId, {
        id: op.operationId, method: method.toUpperCase(), path, summary: op.summary,
        body: resolve(op.requestBody?.content?.['application/json']?.schema),
        response: resolve(ok?.content?.['application/json']?.schema),
      });
    }
  }
  return ops;
}

/** An operation's path with its parameters filled in: '/api/servers/{id}' + {id} → '/api/servers/…'. */
export const fillPath = (path: string, params: Record<string, string>) =>
  path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? ''));

export { humanize, validate, type FieldError } from './validate';
