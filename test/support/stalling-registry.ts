// A registry front that stops sending in the middle of a layer, the way a registry behind a dying
// proxy or link does: it passes every request through to a real registry, but the body of a blob
// (a layer) is cut after `stallAfterBytes` and the connection then stays open, silent. Docker
// itself waits on such a pull forever; the test sees what the controller does about it. It also
// says when the client gave up (closed the stalled connection), which shows a cancel reached dockerd.
import http from 'node:http';

export interface StallingRegistry {
  /** Blob requests that were cut, and how many of them the client has since closed. */
  stalled(): { cut: number; closedByClient: number };
  close(): Promise<void>;
}

export async function startStallingRegistry(opts: { listen: string; upstream: string; stallAfterBytes: number }): Promise<StallingRegistry> {
  const [host, port] = opts.listen.split(':');
  let cut = 0;
  let closedByClient = 0;
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const blob = req.method === 'GET' && /\/blobs\/sha256:/.test(req.url ?? '');
    const up = http.request(`http://${opts.upstream}${req.url}`, { method: req.method, headers: { ...req.headers, host: opts.upstream } }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      if (!blob || upRes.statusCode !== 200) return upRes.pipe(res);
      cut++;
      held.add(res);
      res.on('close', () => { closedByClient++; held.delete(res); });
      let sent = 0;
      upRes.on('data', (chunk: Buffer) => {
        if (sent >= opts.stallAfterBytes) return;
        const part = chunk.subarray(0, opts.stallAfterBytes - sent);
        sent += part.length;
        res.write(part);
        if (sent >= opts.stallAfterBytes) upRes.destroy();
      });
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(Number(port), host, resolve));
  return {
    stalled: () => ({ cut, closedByClient }),
    close: () => new Promise<void>((resolve) => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
