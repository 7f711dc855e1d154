import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BackupStore } from './backup-store.js';
import { meter } from './digest-stream.js';
import { fileSink } from './file-sink.js';

/** Makes a rename in dir durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try { await handle.sync(); } finally { await handle.close(); }
}

/** Backups as files under <state dir>/backups, written to a temp name, synced and renamed when complete. */
export function localStore(stateDir: string): BackupStore {
  const root = path.join(stateDir, 'backups');
  const fileOf = (key: string) => {
    const file = path.resolve(root, key);
    if (!file.startsWith(root + path.sep)) throw new Error('backup key outside the backup folder');
    return file;
  };
  return {
    kind: 'local',
    bucket: null,
    async put(key, body) {
      const file = fileOf(key);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.partial`;
      // The digest is of the bytes handed to write(2), flushed to the disk (fsync) before the
      // rename, and the file's size is checked. Reading the file back now would only re-read the
      // page cache these bytes were just written to: twice the IO, no more certainty.
      const m = meter();
      try {
        await pipeline(body, m.stream, fileSink(tmp));
        const { size } = await fs.stat(tmp);
        if (size !== m.size()) throw new Error(`the file holds ${size} bytes, ${m.size()} were written`);
        await fs.rename(tmp, file);
        await syncDir(path.dirname(file));
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
      return { sha256: m.digest(), size: m.size() };
    },
    async get(key) {
      const file = fileOf(key);
      await fs.access(file);
      return createReadStream(file) as Readable;
    },
    async remove(key) {
      // and whatever an unfinished put left (its controller died mid-write)
      await fs.rm(`${fileOf(key)}.partial`, { force: true });
      await fs.rm(fileOf(key), { force: true });
    },
  };
}
