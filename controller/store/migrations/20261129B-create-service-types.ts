import type { Knex } from 'knex';
import { DEFAULT_SERVICE_TYPES } from '../../catalog/default-types.js';

export async function up(knex: Knex): Promise<void> {
  // Kinds of service (nginx, node-app, ...) with the predefined commands an operator may run.
  await knex.schema.createTable('service_types', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('description');
    t.text('default_image');
    t.jsonb('commands').notNullable().defaultTo('[]');
    t.boolean('builtin').notNullable().defaultTo(false);
    t.timestamps(true, true);
    t.unique(['name'], { indexName: 'service_types_name_unique' });
  });
  await knex('service_types').insert(DEFAULT_SERVICE_TYPES.map((d) => ({
    name: d.name, description: d.description, defaultImage: d.defaultImage ?? null,
    commands: JSON.stringify(d.commands), builtin: true,
  })));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_types');
}
