import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Service templates: what to run. Their per-server placements are deployments.
  await knex.schema.createTable('services', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.uuid('container_image_id').references('container_images.id').onDelete('RESTRICT');
    // The tag of the last successful deploy (changes only when a deploy succeeds).
    t.text('image_tag');
    t.text('type');
    t.jsonb('env').notNullable().defaultTo('{}');
    t.jsonb('ports').notNullable().defaultTo('[]');
    t.jsonb('volumes').notNullable().defaultTo('[]');
    t.jsonb('command');
    t.jsonb('health_check');
    t.text('compose_template');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'services_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('services');
}
