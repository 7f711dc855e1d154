// A code host's Git over HTTP for the Git source tests: `git http-backend` (git's own smart HTTP
// server, run as CGI per request) over a folder of bare repositories, on loopback. `hold()` keeps
// every request open until `release()`, as a code host that stalls mid-fetch would.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export class GitHttpServer {
  url = '';
  /** Requests seen (method and path), in order. */
  readonly requests: string[] = [];
  private held: Array<() => void> | null = null;
  private readonly server = http.createServer((req, res) => {
    this.requests.push(`${req.method} ${req.url}`);
    if (this.held) this.held.push(() => this.serve(req, res));
    else this.serve(req, res);
  });

  constructor(private readonly root: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  hold(): void {
    this.held ??= [];
  }

  /** How many requests wait on hold() now. */
  get holding(): number {
    return this.held?.length ?? 0;
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    waiting.forEach((go) => go());
  }

  async stop(): Promise<void> {
    this.held = null;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const u = new URL(req.url!, 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH!, GIT_PROJECT_ROOT: this.root, GIT_HTTP_EXPORT_ALL: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: req.method!, PATH_INFO: decodeURIComponent(u.pathname), QUERY_STRING: u.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_ADDR: '127.0.0.1', GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim();
        const value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  }
}
