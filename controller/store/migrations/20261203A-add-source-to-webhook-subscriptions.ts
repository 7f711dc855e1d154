import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Where the subscription came from ({kind: 'api'} or a manifest), as on every other managed table.
  await knex.schema.alterTable('webhook_subscriptions', (t) => {
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_subscriptions', (t) => {
    t.dropColumn('source');
  });
}
