import { createHash } from 'node:crypto';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A pass-through that counts and hashes (SHA-256) the bytes going through it. */
export function meter() {
  const hash = createHash('sha256');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex'), size: () => size };
}

/** SHA-256 and size of a whole stream, read to its end (an object read back from its store). */
export async function digestOf(source: Readable): Promise<{ sha256: string; size: number }> {
  const m = meter();
  await pipeline(source, m.stream, new Writable({ write: (_c, _e, done) => done() }));
  return { sha256: m.digest(), size: m.size() };
}
