import type { Readable } from 'node:stream';

/**
 * The first chunk a stream yields (null when it ends empty), put back with unshift() so whoever
 * reads the stream next still gets every byte. The stream is left paused for a pipe to resume.
 */
export function peek(stream: Readable): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const settle = (fn: () => void) => {
      stream.off('readable', onReadable).off('end', onEnd).off('error', onError);
      fn();
    };
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) settle(() => { stream.unshift(chunk); resolve(chunk); });
    };
    const onEnd = () => settle(() => resolve(null));
    const onError = (err: Error) => settle(() => reject(err));
    stream.on('readable', onReadable).on('end', onEnd).on('error', onError);
  });
}

/**
 * Whether a dump compresses itself: a PostgreSQL custom-format archive ("PGDMP", its table data
 * compressed by pg_dump) or a gzip stream. Those are stored as written; anything else (SQL text)
 * is gzipped on the way to the store.
 */
export function compressesItself(head: Buffer | null): boolean {
  if (!head) return false;
  return head.subarray(0, 5).toString('latin1') === 'PGDMP' || (head[0] === 0x1f && head[1] === 0x8b);
}
