import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Chat channels: Slack-compatible incoming-webhook URLs (kept encrypted: the URL is the credential).
  await knex.schema.createTable('chat_channels', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique('chat_channels_name_unique');
    t.text('webhook_url_enc').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamps(true, true);
  });
  await knex.raw('CREATE UNIQUE INDEX chat_channels_one_default ON chat_channels (is_default) WHERE is_default');
  // Which notification types go to which channels.
  await knex.schema.createTable('notification_routings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('type').notNullable();
    t.uuid('chat_channel_id').notNullable().references('chat_channels.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['type', 'chat_channel_id'], { indexName: 'notification_routings_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_routings');
  await knex.schema.dropTable('chat_channels');
}
