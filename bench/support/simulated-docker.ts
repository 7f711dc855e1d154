// A simulated Docker Engine API on a unix socket: the observation source of a bench that puts
// more servers in the store than the machine can run (bench/scale.ts). Socket-mode servers point
// their dockerSocketPath at it, so the controller reaches it through its real Docker client
// (dockerode) exactly as it reaches a local dockerd; only what "the server reports" is made up.
// It answers what the deployment reconciler asks: inspect by name, list (compose label lookup),
// ping, and the events stream (kept open, silent). `observe` is called once per inspect.
import fs from 'node:fs';
import http from 'node:http';

/** Docker's inspect document for a container name, or null: "no such container". */
export type Observe = (containerName: string) => object | null;

export interface SimulatedDocker {
  socketPath: string;
  /** Event streams open right now (one per watched server). */
  openEventStreams(): number;
  stop(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startSimulatedDocker(socketPath: string, observe: Observe): Promise<SimulatedDocker> {
  fs.rmSync(socketPath, { force: true });
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    // dockerode may prefix a version (/v1.43/...)
    const path = new URL(req.url!, 'http://docker').pathname.replace(/^\/v[0-9.]+\//, '/');
    const inspect = /^\/containers\/([^/]+)\/json$/.exec(path);
    if (req.method === 'GET' && inspect) {
      const name = decodeURIComponent(inspect[1]!);
      const doc = observe(name);
      return doc ? json(res, 200, doc) : json(res, 404, { message: `No such container: ${name}` });
    }
    if (req.method === 'GET' && path === '/containers/json') return json(res, 200, []);
    if (path === '/_ping') return res.end('OK');
    if (req.method === 'GET' && path === '/events') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    json(res, 404, { message: `the simulated docker does not answer ${req.method} ${path}` });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socketPath, resolve));
  return {
    socketPath,
    openEventStreams: () => streams.size,
    stop: () => new Promise((resolve) => {
      for (const s of streams) s.destroy();
      server.closeAllConnections();
      server.close(() => { fs.rmSync(socketPath, { force: true }); resolve(); });
    }),
  };
}
