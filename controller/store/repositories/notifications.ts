import type { Knex } from 'knex';
import { isUuid, type Page, type PageQuery } from './base-repository.js';

export type NotificationRow = Record<string, any>;
export interface NotificationFilter { unreadOnly?: boolean; environmentId?: string; category?: string }
export interface PreferenceRow { userId: string; type: string; inApp: boolean; email: boolean }

/** notifications (a user's in-app inbox) and notification_preferences (per user and type). */
export class NotificationsRepository {
  constructor(private readonly db: Knex) {}

  async page(userId: string, filter: NotificationFilter, page: PageQuery): Promise<Page<NotificationRow>> {
    const base = () => {
      const q = this.db('notifications').where('userId', userId);
      if (filter.unreadOnly) q.whereNull('readAt');
      if (filter.environmentId) q.where('environmentId', filter.environmentId);
      if (filter.category) q.where('category', filter.category);
      return q;
    };
    const [items, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'eventId', order: 'desc', nulls: 'last' }, { column: 'id', order: 'desc' }])
        .limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items, total: Number(count), limit: page.limit, offset: page.offset };
  }

  async unreadCount(userId: string): Promise<number> {
    const [{ count }] = await this.db('notifications').where('userId', userId).whereNull('readAt').count({ count: '*' });
    return Number(count);
  }

  /** Marks one of the user's notifications read (keeping the first read time); undefined when it is not theirs. */
  async markRead(userId: string, id: string): Promise<NotificationRow | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.db('notifications').where({ id, userId }).update({ readAt: this.db.raw('coalesce(read_at, now())') }).returning('*');
    return row;
  }

  async markAllRead(userId: string): Promise<number> {
    return this.db('notifications').where('userId', userId).whereNull('readAt').update({ readAt: this.db.fn.now() });
  }

  async preferencesOf(userId: string): Promise<PreferenceRow[]> {
    return this.db('notification_preferences').where('userId', userId);
  }

  async savePreferences(rows: PreferenceRow[]): Promise<void> {
    const now = this.db.fn.now();
    await this.db('notification_preferences').insert(rows.map((r) => ({ ...r, updatedAt: now }))).onConflict(['userId', 'type']).merge();
  }
}
