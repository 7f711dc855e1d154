import { createHash } from 'node:crypto';
import type { Db } from '../store/knex.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Logger } from '../logger.js';
import { ConfigAttachmentsRepository } from '../store/repositories/config-attachments.js';
import { ConfigFilesRepository } from '../store/repositories/config-files.js';
import { ConfigFragmentsRepository } from '../store/repositories/config-fragments.js';
import { SecretsRepository } from '../store/repositories/secrets.js';
import { VarsRepository } from '../store/repositories/vars.js';
import { ConfigCatalog } from './config-catalog.js';
import { ConfigReads } from '../store/repositories/config-reads.js';
import { ConfigSync, type HostFiles } from './config-sync.js';

/** Secrets, vars, fragments, config files and their attachments, rendering and sync: one entry of Services. */
export interface ConfigStore {
  secrets: SecretsRepository;
  vars: VarsRepository;
  fragments: ConfigFragmentsRepository;
  files: ConfigFilesRepository;
  attachments: ConfigAttachmentsRepository;
  catalog: ConfigCatalog;
  /** Reads across config tables: fragment users, sync targets, files that may hold a secret. */
  reads: ConfigReads;
  sync: ConfigSync;
  /** Key of every content hash that may cover secret bytes (sync states, container spec hashes). */
  hashKey: Buffer;
}

/** The key of content and spec hashes, derived from SECRETS_KEY (the same on every replica). */
export const hashKeyOf = (secretsKey: Buffer): Buffer => createHash('sha256').update('stevedore config sync state\0').update(secretsKey).digest();

export function createConfigStore(db: Db, secretBox: SecretBox, hosts: HostFiles, logger: Logger, secretsKey: Buffer): ConfigStore {
  const hashKey = hashKeyOf(secretsKey);
  const attachments = new ConfigAttachmentsRepository(db);
  const reads = new ConfigReads(db);
  const catalog = new ConfigCatalog(reads, secretBox);
  return {
    secrets: new SecretsRepository(db),
    vars: new VarsRepository(db),
    fragments: new ConfigFragmentsRepository(db),
    files: new ConfigFilesRepository(db),
    attachments,
    catalog,
    reads,
    sync: new ConfigSync(hosts, catalog, attachments, logger, hashKey),
    hashKey,
  };
}
