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
  /**
   * Deletes the object and what an unfinished put left under key (local: the `.partial` file).
   * S3 keeps the parts of a multipart upload whose controller died until the bucket's lifecycle
   * rule (AbortIncompleteMultipartUpload, docs/backups.md) removes them.
   */
  remove(key: string): Promise<void>;
}
