import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { Condition } from '../../model/conditions.js';

export interface ConfigAttachmentRow {
  id: string;
  configFileId: string;
  serviceId: string;
  environmentId: string;
  targetPath: string;
  mode: number | null;
  generation: number;
  observedGeneration: number | null;
  conditions: Condition[];
  createdAt: Date;
  updatedAt: Date;
}

export interface SyncStateRow {
  attachmentId: string;
  serverId: string;
  contentHash: string;
  targetPath: string;
  syncedAt: Date;
}

export class ConfigAttachmentsRepository extends BaseRepository<ConfigAttachmentRow> {
  constructor(db: Knex) {
    super(db, 'config_attachments', {
      config_attachments_service_path_unique: 'The service already has a config file at this target path',
      config_attachments_service_id_foreign: 'The service does not exist',
    });
  }

  forServices(serviceIds: string[]): Promise<ConfigAttachmentRow[]> {
    if (!serviceIds.length) return Promise.resolve([]);
    return this.db('config_attachments').whereIn('serviceId', serviceIds).orderBy(['createdAt', 'id']);
  }

  forFiles(configFileIds: string[]): Promise<ConfigAttachmentRow[]> {
    return this.db('config_attachments').whereIn('configFileId', configFileIds).orderBy(['createdAt', 'id']);
  }

  syncStates(attachmentIds: string[]): Promise<SyncStateRow[]> {
    return this.db('config_sync_states').whereIn('attachmentId', attachmentIds);
  }

  async recordSync(s: Omit<SyncStateRow, 'syncedAt'>, trx?: Knex.Transaction) {
    await (trx ?? this.db)('config_sync_states')
      .insert({ ...s, syncedAt: this.db.fn.now() })
      .onConflict(['attachmentId', 'serverId']).merge();
  }

  async forgetSync(attachmentId: string, serverId: string) {
    await this.db('config_sync_states').where({ attachmentId, serverId }).delete();
  }

  forService(serviceId: string): Promise<ConfigAttachmentRow[]> {
    return this.db('config_attachments').where({ serviceId }).orderBy(['createdAt', 'id']);
  }

  /** The attachments of every service deployed on the server. */
  forServer(serverId: string): Promise<ConfigAttachmentRow[]> {
    const serviceIds = this.db('deployments').where({ serverId }).select('serviceId');
    return this.db('config_attachments').whereIn('serviceId', serviceIds).orderBy(['createdAt', 'id']);
  }
}

export const toAttachment = (r: ConfigAttachmentRow, states: SyncStateRow[] = []) => ({
  id: r.id, configFileId: r.configFileId, serviceId: r.serviceId, environmentId: r.environmentId,
  targetPath: r.targetPath, mode: r.mode === null ? null : r.mode.toString(8).padStart(4, '0'),
  syncState: states.filter((s) => s.attachmentId === r.id)
    .map((s) => ({ serverId: s.serverId, contentHash: s.contentHash, targetPath: s.targetPath, syncedAt: s.syncedAt })),
  generation: r.generation, observedGeneration: r.observedGeneration, conditions: r.conditions,
  createdAt: r.createdAt, updatedAt: r.updatedAt,
});
