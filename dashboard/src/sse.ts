// Server-sent events through fetch: EventSource cannot send the Authorization header the API needs.
import { authHeaders } from './api';

export interface SseEvent {
  type: string;
  data: any;
  id?: string;
}

/** Reads the stream until `signal` aborts or the server ends it; `onEvent` gets each parsed frame. */
export async function readEvents(path: string, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(path, { headers: { ...authHeaders(), accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const e = parseFrame(frame);
        if (e) onEvent(e);
      }
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

function parseFrame(frame: string): SseEvent | null {
  let type = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue; // comment: connected, heartbeat
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') type = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return null;
  const raw = data.join('\n');
  let parsed: unknown = raw;
  try { parsed = JSON.parse(raw); } catch { /* a plain text frame */ }
  return { type, data: parsed, id };
}
