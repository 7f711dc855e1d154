import type { Readable } from 'node:stream';

/** What a store holds under a key once `put` resolved: its SHA-256 (hex) and size in bytes. */
export interface StoredObject {
  sha256: string;
  size: number;
}

/** Where backup objects live: a folder under the state dir, or an S3-compatible bucket. */
export interface BackupStore {
  kind: 'local' | 's3';
  bucket: string | null;
  /**
   * Consumes body to its end and stores it under key; rejects without leaving a partial object.
   * Resolves with the digest of the bytes the store holds (each store says how it knows).
   */
  put(key: string, body: Readable): Promise<StoredObject>;
  get(key: string): Promise<Readable>;
  remove(key: string): Promise<void>;
}
