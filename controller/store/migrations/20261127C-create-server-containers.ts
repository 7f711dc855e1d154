import type { Knex } from 'knex';

// Containers found running on a server by the last discovery, linked to the deployment whose
// container name matches (null: started outside Stevedore). Each discovery replaces the set.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('server_containers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('server_id').notNullable().references('servers.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('container_id').notNullable();
    t.text('name').notNullable();
    t.text('image').notNullable();
    t.text('state').notNullable();
    t.text('status');
    t.jsonb('labels').notNullable().defaultTo('{}');
    t.jsonb('ports').notNullable().defaultTo('[]');
    t.timestamp('container_created_at', { useTz: true });
    t.uuid('deployment_id').references('deployments.id').onDelete('SET NULL');
    t.timestamp('discovered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['server_id', 'container_id'], { indexName: 'server_containers_server_container_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('server_containers');
}
