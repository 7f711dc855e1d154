import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BackupStore, StoredObject } from './backup-store.js';
import { meter } from './digest-stream.js';

/**
 * Streams `source` through `transforms` (gzip) into the store under `key`, hashing and counting
 * what is handed to the store on the way, and resolves with it only when the store reports
 * holding exactly those bytes (local: what it wrote and synced; S3: the object read back). On any
 * failure the object is removed and the promise rejects with the reason (`what` names the stream:
 * "the dump", "the volume's copy"). Database and volume backups both store through here.
 */
export async function putVerified(store: BackupStore, key: string, source: Readable, transforms: Duplex[], what: string): Promise<StoredObject> {
  const m = meter();
  const stored = store.put(key, m.stream);
  const piped = pipeline([source, ...transforms, m.stream]);
  let held: StoredObject;
  try {
    [, held] = await Promise.all([piped, stored]);
  } catch (err) {
    await store.remove(key).catch(() => undefined);
    throw new Error(`storing ${what} failed: ${(err as Error).message}`);
  }
  const written = { sha256: m.digest(), size: m.size() };
  if (held.sha256 !== written.sha256 || held.size !== written.size) {
    await store.remove(key).catch(() => undefined);
    throw new Error(`the stored object does not match what was written (sha256 ${held.sha256} of ${held.size} bytes, expected ${written.sha256} of ${written.size})`);
  }
  return written;
}
