import type { S3Client } from '@aws-sdk/client-s3';
import { conflict } from '../../errors/app-error.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { OutgoingGuard } from '../../net/outgoing-guard.js';
import type { ObjectStorageRepository, ObjectStorageRow } from '../../store/repositories/object-storage.js';
import type { BackupStore } from './backup-store.js';
import { localStore } from './local-store.js';
import { s3Client, s3Store } from './s3-store.js';

/** Picks the store of a new backup and reopens the store of an existing one. */
export class BackupStores {
  private client: { row: ObjectStorageRow; client: S3Client } | null = null;

  constructor(private readonly stateDir: string, private readonly repo: ObjectStorageRepository, private readonly box: SecretBox,
    private readonly outgoing: OutgoingGuard) {}

  local(): BackupStore {
    return localStore(this.stateDir);
  }

  /** An S3 client for the saved global configuration, rebuilt when it changes. */
  async s3(): Promise<{ client: S3Client; row: ObjectStorageRow } | null> {
    const row = await this.repo.get();
    if (!row) return null;
    if (!this.client || this.client.row.updatedAt.getTime() !== row.updatedAt.getTime()) {
      this.client?.client.destroy();
      this.client = { row, client: await s3Client({ ...row, secretAccessKey: this.box.open(row.secretAccessKeyEnc) }, this.outgoing) };
    }
    return this.client;
  }

  /**
   * Where a new backup of the environment goes: `requested`, else object storage when the
   * environment enabled it, else local. Returns the store and the key prefix.
   */
  async forNew(environmentId: string, requested?: 'local' | 's3'): Promise<{ store: BackupStore; prefix: string }> {
    const env = await this.repo.ofEnvironment(environmentId);
    const kind = requested ?? (env.enabled ? 's3' : 'local');
    if (kind === 'local') return { store: this.local(), prefix: '' };
    const s3 = await this.s3();
    if (!s3) throw conflict('Object storage is not configured', 'An admin saves it with PUT /api/settings/storage-space');
    if (!env.enabled) throw conflict('Object storage is not enabled for this environment', 'PATCH /api/environments/{envId}/storage {"enabled": true}');
    return { store: s3Store(s3.client, env.bucket ?? s3.row.bucket, s3.row.endpoint), prefix: env.prefix ? `${env.prefix.replace(/\/+$/, '')}/` : '' };
  }

  /** The store an existing backup object is in. */
  async of(backup: { storage: 'local' | 's3'; bucket: string | null }): Promise<BackupStore> {
    if (backup.storage === 'local') return this.local();
    const s3 = await this.s3();
    if (!s3) throw conflict('Object storage is not configured any more', 'Save the object storage configuration again');
    return s3Store(s3.client, backup.bucket ?? s3.row.bucket, s3.row.endpoint);
  }

  close(): void {
    this.client?.client.destroy();
    this.client = null;
  }
}
