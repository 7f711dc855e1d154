import type { Knex } from 'knex';

/** What the chat fan-out reads: enabled channels, routings, and environment overrides. */
export class ChatRoutingReads {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  enabledChannels(): Promise<Array<{ id: string; isDefault: boolean }>> {
    return this.db('chat_channels').where('enabled', true).select('id', 'isDefault');
  }

  routings(): Promise<Array<{ type: string; chatChannelId: string }>> {
    return this.db('notification_routings').select('type', 'chatChannelId');
  }

  /** The environment's own chat channel (its notifications setting), if it names one. */
  async overrideOf(environmentId: string): Promise<string | null> {
    const row = await this.db('environment_settings').where({ environmentId, module: 'notifications' }).first('values');
    return (row?.values as { chatChannelId?: string | null } | undefined)?.chatChannelId ?? null;
  }
}
