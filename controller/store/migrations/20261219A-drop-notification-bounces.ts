import type { Knex } from 'knex';

// Bounce counting moved into the alert state machine (alert_states): the per-subject counters the
// notification fan-out kept are read by nothing now.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notification_bounces');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_bounces', (t) => {
    t.text('key').primary();
    t.integer('count').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}
