import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface ReplayRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: Record<string, string>;
  /** Sent as the exact bytes given (callers hash them: canonical JSON). */
  body?: string;
  /** The address of the real caller: rate limit and audit see it, not the loopback. */
  clientIp: string;
}

export interface ReplayResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Runs one request through the whole app (request id, rate limit, authentication, idempotency,
 * the route's checks, audit) inside this process: no socket, no loopback hop, so the replayed
 * call is the direct call, attributed to the caller's own address.
 */
export function replayThrough(listener: RequestListener) {
  return function replay(r: ReplayRequest): Promise<ReplayResponse> {
    // Koa reads remoteAddress and encrypted off the socket; the message destroys it when read to the end.
    const socket = { remoteAddress: r.clientIp, encrypted: false, readableHighWaterMark: 16384, destroy() {} } as unknown as Socket;
    const req = new IncomingMessage(socket);
    req.method = r.method;
    req.url = r.url;
    const headers: Record<string, string> = { host: 'mcp.internal', ...lower(r.headers) };
    if (r.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(r.body));
      req.push(Buffer.from(r.body));
    }
    req.push(null);
    req.complete = true; // the whole message is here: reading it to the end is not an abort
    req.headers = headers;

    const res = new ServerResponse(req);
    const chunks: Buffer[] = [];
    const take = (chunk: unknown, encoding?: unknown) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8'));
      }
    };
    return new Promise<ReplayResponse>((resolve, reject) => {
      res.write = ((chunk: unknown, encoding?: unknown) => { take(chunk, encoding); return true; }) as typeof res.write;
      res.end = ((chunk?: unknown, encoding?: unknown) => {
        take(chunk, encoding);
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.getHeaders())) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode, headers: out, body: parse(text, out['content-type']) });
        return res;
      }) as typeof res.end;
      Promise.resolve(listener(req, res)).catch(reject);
    });
  };
}

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

function parse(text: string, type: string | undefined): unknown {
  if (!text) return null;
  if (type?.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
