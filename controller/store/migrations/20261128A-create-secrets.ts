import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Secret values of an environment, sealed with the secret box; never readable back except by reveal.
  await knex.schema.createTable('secrets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('value_sealed').notNullable();
    t.text('description');
    t.timestamps(true, true);
    t.unique(['environment_id', 'key'], { indexName: 'secrets_env_key_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secrets');
}
