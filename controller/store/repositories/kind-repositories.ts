import type { Knex } from 'knex';
import type { KindDescriptor } from '../../kinds/kind.js';
import { ConnectionsRepository } from './connections.js';
import { DatabaseKindRepository } from './databases.js';
import { JobKindRepository } from './jobs.js';
import { KindRepository } from './kind-repository.js';
import { RegistryKindRepository } from './registries.js';
import { SecretKindRepository } from './secrets.js';
import { ServerClustersRepository } from './server-clusters.js';
import { VolumeKindRepository } from './volumes.js';

/** Kinds of the generic CRUD routes whose API fields are not just their columns. */
const OWN: Record<string, new (db: Knex, kind: KindDescriptor) => KindRepository> = {
  ServerCluster: ServerClustersRepository,
  Connection: ConnectionsRepository,
  Registry: RegistryKindRepository,
  Database: DatabaseKindRepository,
  Secret: SecretKindRepository,
  Job: JobKindRepository,
  Volume: VolumeKindRepository,
};

/** The repository the generic CRUD routes use for a kind: its own, or the generic one. */
export const repositoryFor = (db: Knex, kind: KindDescriptor): KindRepository => new (OWN[kind.kind] ?? KindRepository)(db, kind);
