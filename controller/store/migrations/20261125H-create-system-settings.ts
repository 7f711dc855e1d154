import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row: the system-wide settings, plus the encrypted registry access token.
  await knex.schema.createTable('system_settings', (t) => {
    t.integer('id').primary().checkIn(['1']);
    t.jsonb('values').notNullable().defaultTo('{}');
    t.text('registry_access_token_enc');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex('system_settings').insert({ id: 1 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('system_settings');
}
