import { assertDocumented } from './openapi-check.js';

export interface HttpResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  headers?: Record<string, string>;
  /** Sent as-is (for malformed JSON tests); otherwise `body` is JSON-encoded. */
  raw?: string | Buffer;
  /** Send the body with no Content-Type header at all (by default a body goes as application/json). */
  noContentType?: boolean;
}

/**
 * A tiny HTTP client over fetch for API tests: real HTTP, parsed JSON, no retries. Every answer is
 * checked against the OpenAPI document the service serves (openapi-check.ts): one the document
 * does not describe fails the test that received it.
 */
export class HttpClient {
  constructor(readonly baseUrl: string, readonly token: string | null = null) {}

  withToken(token: string | null): HttpClient {
    return new HttpClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    // fetch labels a string body text/plain by itself, a Buffer not at all
    if (payload !== undefined && opts.noContentType) payload = Buffer.from(payload);
    else if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload as string | undefined });
    // A stream never ends: report its status and headers, and hang up.
    const answer = { method, url: this.baseUrl + path, status: res.status, contentType: res.headers.get('content-type') };
    if (answer.contentType?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      await assertDocumented(this.baseUrl, { ...answer, body: undefined, hasBody: true });
      return { status: res.status, body: null as T, text: '', headers: res.headers };
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    await assertDocumented(this.baseUrl, { ...answer, body: parsed, hasBody: text !== '' });
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  get<T = any>(path: string, opts?: RequestOptions) { return this.request<T>('GET', path, undefined, opts); }
  post<T = any>(path: string, body?: unknown, opts?: RequestOptions) { return this.request<T>('POST', path, body, opts); }
  put<T = any>(path: string, body?: unknown, opts?: RequestOptions) { return this.request<T>('PUT', path, body, opts); }
  patch<T = any>(path: string, body?: unknown, opts?: RequestOptions) { return this.request<T>('PATCH', path, body, opts); }
  delete<T = any>(path: string, opts?: RequestOptions) { return this.request<T>('DELETE', path, undefined, opts); }
}
