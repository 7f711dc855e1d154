import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Incoming webhook deliveries seen recently (hash of endpoint + signature + body): a replay
  // within five minutes answers the first result instead of deploying again.
  await knex.schema.createTable('incoming_webhook_replays', (t) => {
    t.text('key').primary();
    t.integer('status');
    t.jsonb('response');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('incoming_webhook_replays');
}
