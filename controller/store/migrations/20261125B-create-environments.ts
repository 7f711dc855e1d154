import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('environments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable().unique('environments_name_unique');
    t.text('description');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
  });
  // One row per settings module (general, monitoring, operations, data, configuration, notifications).
  await knex.schema.createTable('environment_settings', (t) => {
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('module').notNullable();
    t.jsonb('values').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['environment_id', 'module']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('environment_settings');
  await knex.schema.dropTable('environments');
}
