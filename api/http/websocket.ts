// WebSocket routes go through the same middleware and route specs as every other request: the
// server's 'upgrade' event hands the request to the Koa app with a response written on the raw
// socket, so request id, rate limit, authentication and the route's authorization (401 → scope →
// role → 404 → 400/409) answer a refused upgrade with the usual JSON envelope. A route that
// accepts calls acceptWebSocket, which completes the handshake on that socket.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { validationError } from '../../controller/errors/app-error.js';
import type { Ctx } from './types.js';

/** The subprotocol a client names so that a browser, which cannot set headers, can send its token too. */
export const BEARER_PROTOCOL_PREFIX = 'bearer.';
/** The subprotocol the server answers with (never the bearer one: the token is not echoed). */
export const EXEC_PROTOCOL = 'stevedore.exec';

const UPGRADE = Symbol('websocket upgrade');
interface Pending { socket: Duplex; head: Buffer }
type UpgradeRequest = http.IncomingMessage & { [UPGRADE]?: Pending };

const wss = new WebSocketServer({
  noServer: true,
  maxPayload: 1024 * 1024,
  handleProtocols: (protocols) => (protocols.has(EXEC_PROTOCOL) ? EXEC_PROTOCOL : false),
});

/** The token of a `bearer.<token>` subprotocol, for a request without an Authorization header. */
export function bearerFromProtocols(header: string | undefined): string | null {
  for (const p of (header ?? '').split(',')) {
    const v = p.trim();
    if (v.startsWith(BEARER_PROTOCOL_PREFIX) && v.length > BEARER_PROTOCOL_PREFIX.length) return v.slice(BEARER_PROTOCOL_PREFIX.length);
  }
  return null;
}

export interface WebSocketUpgrades {
  /** The server's 'upgrade' listener: runs the app on the request, its answer written to the socket. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every upgraded connection (at shutdown: the server's close waits for them). */
  closeAll(): void;
}

export function webSocketUpgrades(callback: http.RequestListener): WebSocketUpgrades {
  const open = new Set<Duplex>();
  return {
    upgrade(req, socket, head) {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
      socket.on('error', () => socket.destroy());
      if (!req.headers.authorization) {
        const token = bearerFromProtocols(req.headers['sec-websocket-protocol']);
        if (token) req.headers.authorization = `Bearer ${token}`;
      }
      (req as UpgradeRequest)[UPGRADE] = { socket, head };
      const res = new http.ServerResponse(req);
      res.assignSocket(socket as never);
      // an answer that is not the handshake (an error envelope) ends the connection with it
      res.on('finish', () => socket.end());
      void callback(req, res);
    },
    closeAll() {
      for (const socket of open) socket.destroy();
    },
  };
}

/** 400 unless the request asks to become a WebSocket (and came through the server's upgrade). */
export function assertUpgrade(ctx: Ctx): void {
  if (!(ctx.req as UpgradeRequest)[UPGRADE] || (ctx.get('upgrade') ?? '').toLowerCase() !== 'websocket') {
    throw validationError('This route answers a WebSocket upgrade (Connection: Upgrade, Upgrade: websocket)');
  }
}

/** Completes the handshake of this request; 400 when it is a plain HTTP request. */
export function acceptWebSocket(ctx: Ctx): Promise<WebSocket> {
  assertUpgrade(ctx);
  const pending = (ctx.req as UpgradeRequest)[UPGRADE]!;
  ctx.respond = false;
  const res = ctx.res;
  res.detachSocket(pending.socket as never);
  return new Promise((resolve) => wss.handleUpgrade(ctx.req, pending.socket, pending.head, resolve));
}
