import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Admin-managed outgoing webhooks (filters by type and environment; empty filter = all).
  await knex.schema.createTable('outgoing_webhooks', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('url').notNullable();
    t.text('secret_enc');
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('event_types').notNullable().defaultTo('[]');
    t.jsonb('environment_ids').notNullable().defaultTo('[]');
    t.integer('failure_count').notNullable().defaultTo(0);
    t.boolean('failed').notNullable().defaultTo(false);
    t.timestamp('last_delivered_at', { useTz: true });
    t.timestamp('last_failed_at', { useTz: true });
    t.timestamps(true, true);
  });
  // Environment-scoped subscriptions: same delivery, one environment, with a delivery history.
  await knex.schema.createTable('webhook_subscriptions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('url').notNullable();
    t.text('secret_enc');
    t.jsonb('headers').notNullable().defaultTo('{}');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.jsonb('event_types').notNullable().defaultTo('[]');
    t.integer('failure_count').notNullable().defaultTo(0);
    t.boolean('failed').notNullable().defaultTo(false);
    t.timestamp('last_delivered_at', { useTz: true });
    t.timestamp('last_failed_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['environment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_subscriptions');
  await knex.schema.dropTable('outgoing_webhooks');
}
