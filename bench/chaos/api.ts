// Every request the chaos harness makes goes through here, so that the first invariant (the API
// answers only 2xx, 4xx or 503; a connection drops only with its replica's own kill) is checked
// on all of them. Answers are counted by status; those outside 2xx/4xx/503 are kept with their
// time span and replica, and judged once the replicas' down windows are known.
import type { Replica } from './replicas.js';

export interface Suspect {
  replica: string;
  method: string;
  path: string;
  /** 0: no answer (connection refused, reset, or the harness's timeout) */
  status: number;
  started: number;
  ended: number;
  text: string;
}

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
}

/** Whether an answer is one the API may give: 2xx, 4xx, or 503 (the database unreachable). */
export const allowedStatus = (status: number): boolean => (status >= 200 && status < 300) || (status >= 400 && status < 500) || status === 503;

/** The API's 503 when it cannot reach PostgreSQL (api/middleware/error-mapping.ts). */
export const DATABASE_UNREACHABLE = /database is not reachable/;

export class AnswerLog {
  readonly byStatus = new Map<number, number>();
  readonly suspects: Suspect[] = [];
  /** 503s saying the database is not reachable: true only while it is away. */
  readonly databaseAway: Suspect[] = [];

  record(replica: Replica, method: string, path: string, status: number, started: number, text: string): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    const answer = () => ({ replica: replica.name, method, path, status, started, ended: Date.now(), text: text.slice(0, 300) });
    if (!allowedStatus(status)) this.suspects.push(answer());
    if (status === 503 && DATABASE_UNREACHABLE.test(text)) this.databaseAway.push(answer());
  }

  get total(): number {
    return [...this.byStatus.values()].reduce((a, b) => a + b, 0);
  }
}

/** A JSON client of one replica whose every answer is recorded. */
export class Api {
  constructor(readonly replica: Replica, private readonly token: () => string | null, private readonly log: AnswerLog, private readonly timeoutMs = 90_000) {}

  async request<T = any>(method: string, path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<Answer<T>> {
    const started = Date.now();
    const token = this.token();
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status = 0;
    let text = '';
    try {
      const res = await fetch(this.replica.url + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
      status = res.status;
    } catch (err) {
      text = `no answer: ${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ''}`;
    }
    this.log.record(this.replica, method, path.replace(/[0-9a-f-]{36}/g, ':id'), status, started, text);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch { /* not JSON */ }
    return { status, body: parsed as T, text };
  }

  get = <T = any>(path: string) => this.request<T>('GET', path);
  post = <T = any>(path: string, body?: unknown, timeoutMs?: number) => this.request<T>('POST', path, body ?? {}, timeoutMs);
  patch = <T = any>(path: string, body: unknown) => this.request<T>('PATCH', path, body);
  put = <T = any>(path: string, body: unknown) => this.request<T>('PUT', path, body);
  delete = <T = any>(path: string) => this.request<T>('DELETE', path);
}
