import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One service placed on one server, as one container.
  await knex.schema.createTable('deployments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('service_id').notNullable().references('services.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.uuid('server_id').notNullable().references('servers.id').onDelete('CASCADE');
    t.text('container_name').notNullable();
    t.text('compose_path');
    // Observed: pending (never deployed), running, stopped, failed, unknown.
    t.text('status').notNullable().defaultTo('pending');
    t.text('image_tag');
    t.text('previous_image_tag');
    t.text('container_id');
    t.text('image_digest');
    t.jsonb('exposed_ports').notNullable().defaultTo('[]');
    t.timestamp('last_deployed_at', { useTz: true });
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('conditions').notNullable().defaultTo('[]');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['server_id', 'container_name'], { indexName: 'deployments_server_container_unique' });
    t.index(['service_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deployments');
}
