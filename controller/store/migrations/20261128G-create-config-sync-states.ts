import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // What was last written for one attachment on one server (sha256 of the bytes), so a fragment
  // change knows which files are already synced and drift can compare.
  await knex.schema.createTable('config_sync_states', (t) => {
    t.uuid('attachment_id').notNullable().references('config_attachments.id').onDelete('CASCADE');
    t.uuid('server_id').notNullable().references('servers.id').onDelete('CASCADE');
    t.text('content_hash').notNullable();
    t.text('target_path').notNullable();
    t.timestamp('synced_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['attachment_id', 'server_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_sync_states');
}
