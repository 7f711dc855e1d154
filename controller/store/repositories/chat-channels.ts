import type { Knex } from 'knex';
import { isUuid, type Page, type PageQuery } from './base-repository.js';

export type ChatChannelRow = Record<string, any>;

/** chat_channels: Slack-compatible incoming webhooks; at most one is the default. */
export class ChatChannelsRepository {
  constructor(private readonly db: Knex) {}

  async findById(id: string): Promise<ChatChannelRow | undefined> {
    return isUuid(id) ? this.db('chat_channels').where('id', id).first() : undefined;
  }

  async findEnabled(id: string): Promise<ChatChannelRow | undefined> {
    return this.db('chat_channels').where({ id, enabled: true }).first();
  }

  async listEnabled(): Promise<ChatChannelRow[]> {
    return this.db('chat_channels').where('enabled', true).orderBy('name');
  }

  async page(page: PageQuery): Promise<Page<ChatChannelRow>> {
    const [items, [{ count }]] = await Promise.all([
      this.db('chat_channels').orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      this.db('chat_channels').count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** Inserts a channel; `isDefault` moves the default flag to it. */
  async create(values: ChatChannelRow): Promise<ChatChannelRow> {
    return this.db.transaction(async (trx) => {
      if (values.isDefault) await trx('chat_channels').where('isDefault', true).update({ isDefault: false });
      const [row] = await trx('chat_channels').insert(values).returning('*');
      return row;
    });
  }

  async update(id: string, values: ChatChannelRow): Promise<ChatChannelRow> {
    return this.db.transaction(async (trx) => {
      if (values.isDefault) await trx('chat_channels').where('isDefault', true).whereNot('id', id).update({ isDefault: false });
      const [row] = await trx('chat_channels').where('id', id).update({ ...values, updatedAt: trx.fn.now() }).returning('*');
      return row;
    });
  }

  /** Deletes the channel, its pending deliveries and the environment overrides that point at it. */
  async delete(id: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('delivery_outbox').where({ kind: 'chat', targetId: id }).whereIn('status', ['pending']).delete();
      await trx('chat_channels').where('id', id).delete();
      await trx('environment_settings').where('module', 'notifications').whereRaw(`values->>'chatChannelId' = ?`, [id])
        .update({ values: JSON.stringify({ chatChannelId: null }), updatedAt: trx.fn.now() });
    });
  }
}
