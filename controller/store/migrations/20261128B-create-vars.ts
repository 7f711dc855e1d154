import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Plaintext configuration values of an environment, for ${KEY} placeholders.
  await knex.schema.createTable('vars', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('value').notNullable();
    t.text('description');
    t.timestamps(true, true);
    t.unique(['environment_id', 'key'], { indexName: 'vars_env_key_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('vars');
}
