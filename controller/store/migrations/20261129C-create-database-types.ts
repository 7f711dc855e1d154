import type { Knex } from 'knex';
import { DEFAULT_DATABASE_TYPES } from '../../catalog/default-types.js';

export async function up(knex: Knex): Promise<void> {
  // Kinds of database (postgres, mysql, ...) with default port and predefined commands.
  await knex.schema.createTable('database_types', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description');
    t.text('default_image');
    t.integer('default_port');
    t.jsonb('commands').notNullable().defaultTo('[]');
    t.boolean('builtin').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.unique(['name'], { indexName: 'database_types_name_unique' });
  });
  await knex('database_types').insert(DEFAULT_DATABASE_TYPES.map((d) => ({
    name: d.name, description: d.description, defaultImage: d.defaultImage ?? null, defaultPort: d.defaultPort ?? null,
    commands: JSON.stringify(d.commands), builtin: true,
  })));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('database_types');
}
