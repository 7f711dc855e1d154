import type { Knex } from 'knex';
import { isUuid, type Page, type PageQuery } from './base-repository.js';

export interface NotificationRoutingRow { id: string; type: string; chatChannelId: string; createdAt: Date }

/** notification_routings: which notification types go to which chat channels. */
export class NotificationRoutingsRepository {
  constructor(private readonly db: Knex) {}

  async page(type: string | undefined, page: PageQuery): Promise<Page<NotificationRoutingRow>> {
    const base = () => (type ? this.db('notification_routings').where('type', type) : this.db('notification_routings'));
    const [items, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'type' }, { column: 'createdAt' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** The new routing, or undefined when this type already goes to this channel. */
  async insertUnlessRouted(values: { type: string; chatChannelId: string }): Promise<NotificationRoutingRow | undefined> {
    const [row] = await this.db('notification_routings').insert(values).onConflict(['type', 'chatChannelId']).ignore().returning('*');
    return row;
  }

  async delete(id: string): Promise<boolean> {
    return isUuid(id) && (await this.db('notification_routings').where('id', id).delete()) > 0;
  }
}
