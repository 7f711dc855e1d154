import type { Knex } from 'knex';

export interface NotificationTypeOverride {
  code: string;
  bounceThreshold: number | null;
  recoverThreshold: number | null;
  reminderIntervalSec: number | null;
}

/** Admin overrides of notification types' alert policies (the defaults live in notifications/types.ts). */
export class NotificationTypeSettingsRepository {
  constructor(private readonly db: Knex) {}

  all(): Promise<NotificationTypeOverride[]> {
    return this.db('notification_type_settings').select('code', 'bounceThreshold', 'recoverThreshold', 'reminderIntervalSec');
  }

  async upsert(o: NotificationTypeOverride): Promise<void> {
    await this.db('notification_type_settings').insert({ ...o, updatedAt: this.db.fn.now() }).onConflict('code').merge();
  }
}
