import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BackupStore } from './backup-store.js';

/** Backups as files under <state dir>/backups, written to a temp name and renamed when complete. */
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
      try {
        await pipeline(body, createWriteStream(tmp, { mode: 0o600 }));
        await fs.rename(tmp, file);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
    },
    async get(key) {
      const file = fileOf(key);
      await fs.access(file);
      return createReadStream(file) as Readable;
    },
    async remove(key) {
      await fs.rm(fileOf(key), { force: true });
    },
  };
}
