import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
  /** The status this receiver answered (null while hanging or when the socket was cut). */
  answered: number | null;
}

export type Mode = 'ok' | 'fail' | 'hang';

/**
 * A real HTTP receiver on loopback that records every request and answers per its mode:
 * 'ok' 200, 'fail' 500, 'hang' never (until the socket is closed). `modeFor` decides per request.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  mode: Mode = 'ok';
  modeFor: ((req: ReceivedRequest, index: number) => Mode) | null = null;
  private server = http.createServer((req, res) => this.handle(req, res));
  private waiters: Array<() => void> = [];
  private hung = new Set<http.ServerResponse>();
  url = '';
  /** The most requests this receiver held open at once. */
  maxHung = 0;
  /** When each held request arrived and when it closed (undefined: still held). */
  hungSpans: Array<{ from: number; to?: number }> = [];

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try { json = JSON.parse(body); } catch { /* not JSON */ }
      const rec: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, body, json, at: Date.now(), answered: null };
      const mode = this.modeFor ? this.modeFor(rec, this.requests.length) : this.mode;
      this.requests.push(rec);
      if (mode === 'hang') {
        this.hung.add(res);
        this.maxHung = Math.max(this.maxHung, this.hung.size);
        const span: { from: number; to?: number } = { from: rec.at };
        this.hungSpans.push(span);
        res.on('close', () => {
          this.hung.delete(res);
          span.to = Date.now();
        });
      } else {
        rec.answered = mode === 'ok' ? 200 : 500;
        res.writeHead(rec.answered, { 'content-type': 'application/json' }).end('{}');
      }
      this.waiters.splice(0).forEach((w) => w());
    });
  }

  get hungCount() {
    return this.hung.size;
  }

  /** Answered 2xx requests. */
  get delivered() {
    return this.requests.filter((r) => r.answered !== null && r.answered < 300);
  }

  /** Resolves when `pred` holds, polling on each request and every 50 ms; rejects after timeoutMs. */
  async waitFor(pred: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${what} (${this.requests.length} requests seen)`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => { clearTimeout(t); r(); });
      });
    }
  }

  /** Cuts every hanging request. */
  dropHung(): void {
    for (const res of this.hung) res.socket?.destroy();
    this.hung.clear();
  }

  reset(): void {
    this.requests.length = 0;
    this.mode = 'ok';
    this.modeFor = null;
    this.maxHung = 0;
    this.hungSpans = [];
  }

  async stop(): Promise<void> {
    this.dropHung();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
