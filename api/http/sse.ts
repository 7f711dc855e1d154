// Server-sent events on a Koa context: takes over the response, writes `event:`/`id:`/`data:`
// frames, a comment heartbeat every 15 s, and runs `onClose` when the client goes away.
import type { Ctx } from './types.js';

export interface SseStream {
  send(event: string, data: unknown, id?: number | string): void;
  closed: Promise<void>;
  close(): void;
}

export const HEARTBEAT_MS = 15_000;

/** The OpenAPI description of a route that answers with openSse (spread into its RouteSpec). */
export const SSE_ANSWER = {
  raw: true,
  responseType: 'text/event-stream',
  response: { type: 'string', description: 'Server-sent events: `event:`, `id:` and JSON `data:` frames, and a comment heartbeat every 15 s' },
} as const;

export function openSse(ctx: Ctx): SseStream {
  ctx.respond = false;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  const res = ctx.res;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': ctx.state.requestId,
  });
  res.write(': connected\n\n');
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => { resolveClosed = r; });
  const done = () => { clearInterval(heartbeat); resolveClosed(); };
  ctx.req.on('close', done);
  res.on('close', done);
  return {
    send(event, data, id) {
      if (res.writableEnded) return;
      const lines = JSON.stringify(data).split('\n').map((l) => `data: ${l}`).join('\n');
      res.write(`event: ${event}\n${id !== undefined ? `id: ${id}\n` : ''}${lines}\n\n`);
    },
    closed,
    close() {
      done();
      res.end();
    },
  };
}

/** Last-Event-ID header (browser reconnect) or ?lastEventId= (first connect). */
export function lastEventIdOf(ctx: Ctx): number {
  const raw = ctx.get('last-event-id') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '');
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
