import { Transform } from 'node:stream';

/**
 * Joins small chunks into ones of at least `bytes` (the last may be shorter). An SSH channel
 * delivers a dump in packets of about 32 KB; handing each to write(2) through the thread pool cost
 * the controller a core-second per 60 MB in thread hand-offs and system calls (bench/backup.ts),
 * a megabyte at a time costs a thirtieth of that.
 */
export function coalesce(bytes: number): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  const take = () => {
    const joined = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    return joined;
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      parts.push(chunk);
      size += chunk.length;
      done(null, size >= bytes ? take() : undefined);
    },
    flush(done) {
      done(null, size ? take() : undefined);
    },
  });
}
