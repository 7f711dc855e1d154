import type { Readable } from 'node:stream';

/** Where backup objects live: a folder under the state dir, or an S3-compatible bucket. */
export interface BackupStore {
  kind: 'local' | 's3';
  bucket: string | null;
  /** Consumes body to its end and stores it under key; rejects without leaving a partial object. */
  put(key: string, body: Readable): Promise<void>;
  get(key: string): Promise<Readable>;
  remove(key: string): Promise<void>;
}
