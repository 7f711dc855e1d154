import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('container_images', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    // RESTRICT: a registry with images attached cannot be deleted.
    t.uuid('registry_connection_id').references('registry_connections.id').onDelete('RESTRICT');
    t.text('image_name').notNullable();
    t.boolean('auto_update').notNullable().defaultTo(false);
    t.text('current_tag');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'image_name'], { indexName: 'container_images_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('container_images');
}
