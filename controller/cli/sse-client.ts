import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';

export interface SseFrame { event: string; data: any; id?: string }

/**
 * Reads an SSE route and calls `onFrame` for each named frame (and with event `heartbeat` for
 * a comment, so a follower can re-check what it waits for). Ends when the server closes, the
 * signal aborts, or `onFrame` returns true.
 */
export async function readSse(api: ApiClient, route: string, onFrame: (f: SseFrame) => boolean | void | Promise<boolean | void>, signal?: AbortSignal): Promise<void> {
  const res = await api.raw('GET', route, undefined, signal);
  if (!res.ok || !res.body) {
    const body = await res.json().catch(() => null) as { code?: string; message?: string } | null;
    throw new CliError(`GET ${route}: ${res.status} ${body?.code ?? ''} ${body?.message ?? ''}`.trim());
  }
  const decoder = new TextDecoder();
  let buf = '';
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const frame: SseFrame = { event: 'message', data: '' };
        const data: string[] = [];
        let comment = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comment = true;
          else if (line.startsWith('event:')) frame.event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          else if (line.startsWith('id:')) frame.id = line.slice(3).trim();
        }
        if (!data.length && comment) frame.event = 'heartbeat';
        try { frame.data = data.length ? JSON.parse(data.join('\n')) : null; } catch { frame.data = data.join('\n'); }
        if (await onFrame(frame)) return;
      }
    }
  } catch (e) {
    if ((e as Error).name === 'AbortError') return;
    throw e;
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
