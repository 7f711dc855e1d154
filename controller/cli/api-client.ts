import { CliError } from './cli-error.js';

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused', ENOTFOUND: 'host not found', EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'timed out', ECONNRESET: 'connection reset', EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out', CERT_HAS_EXPIRED: 'certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
};

/** "cannot reach http://…: connection refused" from what fetch throws (its cause holds the code). */
export function unreachable(url: string, e: unknown): CliError {
  const cause = (e as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  const reason = (code && NETWORK_REASONS[code]) ?? code ?? cause?.message ?? (e as Error).message;
  return new CliError(`cannot reach ${url}: ${reason.split('\n')[0]}`);
}

/** The API's error envelope as one line: "404 NOT_FOUND: service not found (hint)". */
export function apiErrorLine(status: number, body: { code?: string; message?: string; hint?: string } | null): string {
  const what = [body?.code, body?.message].filter(Boolean).join(': ');
  return `${status}${what ? ` ${what}` : ''}${body?.hint ? ` (${body.hint})` : ''}`;
}

/** A thin JSON client of the API with one-line errors; the token never appears in any of them. */
export class ApiClient {
  constructor(readonly url: string, private readonly token: string) {}

  async request<T = any>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, route, body);
    const text = await res.text();
    let json: any = null;
    try { json = text ? JSON.parse(text) : null; } catch { /* not JSON: reported below */ }
    if (!res.ok) {
      if (res.status === 401) throw new CliError(`${apiErrorLine(401, json)}: log in again (stevedore login ${this.url})`);
      throw new CliError(`${method} ${route}: ${apiErrorLine(res.status, json)}`);
    }
    return json as T;
  }

  get = <T = any>(route: string) => this.request<T>('GET', route);

  /** A route that answers text (YAML, Mermaid); errors as request's. */
  async text(route: string): Promise<string> {
    const res = await this.raw('GET', route);
    const text = await res.text();
    if (res.ok) return text;
    let json: any = null;
    try { json = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    if (res.status === 401) throw new CliError(`${apiErrorLine(401, json)}: log in again (stevedore login ${this.url})`);
    throw new CliError(`GET ${route}: ${apiErrorLine(res.status, json)}`);
  }
  post = <T = any>(route: string, body: unknown = {}) => this.request<T>('POST', route, body);

  /** The answer as it comes, for streams; network failures become one line. */
  async raw(method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    const target = new URL(route, this.url);
    try {
      return await fetch(target, {
        method, signal,
        headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      throw unreachable(this.url, e);
    }
  }

  /** Every item of a list route, page by page (the API caps a page at 200). */
  async list<T = any>(route: string): Promise<T[]> {
    const items: T[] = [];
    const sep = route.includes('?') ? '&' : '?';
    for (let offset = 0; ; offset += 200) {
      const page = await this.get<{ items: T[]; total: number }>(`${route}${sep}limit=200&offset=${offset}`);
      items.push(...page.items);
      if (items.length >= page.total || !page.items.length) return items;
    }
  }
}
