// A pass-through HTTP proxy in front of a registry for benchmarks: counts requests by kind, the
// TCP connections clients open (keep-alive reuses them) and the most requests in flight at once
// (the concurrency actually applied). Adds a hop, so figures are timed without it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxyCounts { requests: Record<string, number>; connections: number; maxInFlight: number }

export async function startCountingProxy(target: string): Promise<{ url: string; counts(): ProxyCounts; reset(): void; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let requests: Record<string, number> = {};
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const kindOf = (method: string, path: string) => {
    if (path === '/v2/' || path === '/v2') return 'ping';
    if (path.includes('/tags/list')) return 'tags';
    if (path.includes('/manifests/')) return `manifest ${method}`;
    return `${method} other`;
  };
  const server = http.createServer((req, res) => {
    const kind = kindOf(req.method!, new URL(req.url!, 'http://x').pathname);
    requests[kind] = (requests[kind] ?? 0) + 1;
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    res.on('close', () => inFlight--);
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ requests: { ...requests }, connections, maxInFlight }),
    reset: () => { requests = {}; connections = 0; maxInFlight = 0; },
    stop: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); agent.destroy(); }),
  };
}
