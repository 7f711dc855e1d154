import fs from 'node:fs/promises';
import { Writable } from 'node:stream';

/**
 * A stream written to `file` (created, mode 0600) through one reused buffer of `bytes`, and
 * flushed to the disk (fsync) when it ends. An SSH channel delivers a dump in packets of ~32 KB:
 * one write(2) per packet cost the controller a core-second per 60 MB in thread-pool hand-offs
 * (bench/backup.ts), and joining packets into a new megabyte each time left a megabyte of garbage
 * per megabyte written for the garbage collector to find. Here each byte is copied once, into
 * the same buffer, written when it is full.
 */
export function fileSink(file: string, bytes = 1024 * 1024): Writable {
  const buffer = Buffer.allocUnsafe(bytes);
  let used = 0;
  let handle: fs.FileHandle | undefined;
  const flush = async () => {
    for (let at = 0; at < used;) at += (await handle!.write(buffer, at, used - at)).bytesWritten;
    used = 0;
  };
  const write = async (chunk: Buffer) => {
    for (let at = 0; at < chunk.length;) {
      const n = chunk.copy(buffer, used, at);
      used += n;
      at += n;
      if (used === bytes) await flush();
    }
  };
  return new Writable({
    construct(done) {
      fs.open(file, 'w', 0o600).then((h) => { handle = h; done(); }, done);
    },
    write(chunk: Buffer, _enc, done) {
      write(chunk).then(() => done(), done);
    },
    final(done) {
      flush().then(() => handle!.sync()).then(() => done(), done);
    },
    destroy(err, done) {
      const close = handle ? handle.close() : Promise.resolve();
      close.then(() => done(err), (closeErr) => done(err ?? closeErr));
    },
  });
}
