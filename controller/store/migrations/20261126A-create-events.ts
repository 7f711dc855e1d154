import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The event log behind SSE streams (ids serve Last-Event-ID resume) and notifications.
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('id').primary();
    t.text('type').notNullable();
    t.uuid('environment_id');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['environment_id', 'id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('events');
}
