// Reading an SSE response (text/event-stream) as a browser's EventSource would, for tests.
import { checkedFetch } from './openapi-check.js';

export interface SseFrame { id?: string; event?: string; data?: any }

/** The frames of an event-stream body as they arrive (data parsed as JSON), and its comment lines. */
export async function* sseFrames(body: AsyncIterable<Uint8Array>, onComment: (line: string) => void = () => {}): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) onComment(line);
        else if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
      }
      yield frame;
    }
  }
}

/**
 * Opens an SSE stream (checked against the OpenAPI document like every API answer) and collects
 * its named events and comments until `close()`. `ready` resolves with the response.
 */
export function openStream(url: string, token: string, headers: Record<string, string> = {}) {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const ac = new AbortController();
  const ready = checkedFetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: ac.signal }).then((res) => {
    if (res.status !== 200) return res;
    void (async () => {
      try {
        for await (const f of sseFrames(res.body as unknown as AsyncIterable<Uint8Array>, (line) => comments.push(line))) if (f.event) frames.push(f);
      } catch { /* aborted */ }
    })();
    return res;
  });
  return { frames, comments, ready, close: () => ac.abort() };
}
