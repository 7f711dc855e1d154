// One interactive exec session: a WebSocket bridged to a TTY exec in the container. Binary frames
// from the client are keystrokes; text frames are JSON: {type:'resize', cols, rows} or
// {type:'stdin', data}. The server sends what the terminal prints as binary frames and, at the
// end, {type:'exit', exitCode, reason} before it closes. Nothing typed or printed is kept.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { TtySession } from '../../controller/deploy/container-exec.js';

/** Why a session ended, as its audit entry and last message say. */
export type EndReason = 'exit' | 'client-closed' | 'revoked' | 'role-lowered' | 'exec-disabled' | 'container-gone';

export interface SessionEnd { reason: EndReason; exitCode: number | null }

const CONTROL_MAX = 64 * 1024;
const clamp = (n: unknown, max: number) => (Number.isInteger(n) && (n as number) >= 1 ? Math.min(n as number, max) : null);

/**
 * Bridges until one side ends; `end(reason)` (a revoked token, a lowered role) closes it from
 * outside. Resolves once, with the reason and the exit code Docker recorded (null when the process
 * was left running: Docker cannot stop an exec's process, closing its terminal hangs it up).
 */
export function bridge(ws: WebSocket, tty: TtySession): { ended: Promise<SessionEnd>; end(reason: EndReason): void } {
  const stream: Duplex = tty.stream;
  let finish!: (reason: EndReason) => void;
  const ended = new Promise<SessionEnd>((resolve) => {
    let done = false;
    finish = (reason) => {
      if (done) return;
      done = true;
      void (async () => {
        const exitCode = reason === 'exit' ? await tty.exitCode().catch(() => null) : null;
        stream.destroy();
        if (ws.readyState === ws.OPEN) {
          ws.send(JSON.stringify({ type: 'exit', exitCode, reason }));
          ws.close(reason === 'exit' ? 1000 : 4403, reason);
        }
        resolve({ reason, exitCode });
      })();
    };
  });
  stream.on('data', (b: Buffer) => { if (ws.readyState === ws.OPEN) ws.send(b, { binary: true }); });
  stream.once('end', () => finish('exit'));
  stream.once('close', () => finish('exit'));
  // on, not once: a write racing the end must not become an unhandled error
  stream.on('error', () => finish('container-gone'));
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (stream.destroyed || !stream.writable) return;
    if (isBinary) { stream.write(data); return; }
    if (data.length > CONTROL_MAX) return;
    let m: { type?: unknown; cols?: unknown; rows?: unknown; data?: unknown };
    try { m = JSON.parse(data.toString('utf8')); } catch { return; }
    if (m.type === 'stdin' && typeof m.data === 'string') stream.write(m.data);
    if (m.type === 'resize') {
      const cols = clamp(m.cols, 1000);
      const rows = clamp(m.rows, 1000);
      if (cols && rows) tty.resize(cols, rows).catch(() => {});
    }
  });
  ws.once('close', () => finish('client-closed'));
  ws.on('error', () => finish('client-closed'));
  return { ended, end: (reason) => finish(reason) };
}
