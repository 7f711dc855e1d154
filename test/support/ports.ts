// Loopback ports that fail in the ways a target test must not tell apart, and one that answers
// HTTP but not what was asked (a target that is "not S3").
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

const listen = async (server: net.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** A loopback port nothing listens on: bound once, then closed. */
export async function closedPort(): Promise<string> {
  const server = net.createServer();
  const url = await listen(server);
  await new Promise<void>((r) => server.close(() => r()));
  return url;
}

/** A loopback TCP port that speaks no HTTP: it writes an SSH banner and closes. */
export async function notHttpPort() {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end('SSH-2.0-OpenSSH_9.6\r\n');
  });
  const url = await listen(server);
  return {
    url,
    stop: () => new Promise<void>((r) => {
      server.close(() => r());
      for (const s of sockets) s.destroy();
    }),
  };
}

/** A tiny HTTP server that answers every request 200 with `body` (garbage to an S3 client). */
export async function garbageServer(body: string, contentType: string) {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': contentType }).end(body);
  });
  const url = await listen(server);
  return { url, stop: () => new Promise<void>((r) => server.close(() => r())) };
}
