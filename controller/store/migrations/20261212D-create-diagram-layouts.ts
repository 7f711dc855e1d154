import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Where the dashboard's topology diagram puts each node: one layout per environment.
  await knex.schema.createTable('diagram_layouts', (t) => {
    t.uuid('environment_id').primary().references('environments.id').onDelete('CASCADE');
    t.jsonb('layout').notNullable();
    t.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('diagram_layouts');
}
