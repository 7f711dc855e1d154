import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Named groups of servers. Members are a side table so deleting a cluster only detaches its
  // servers, and deleting a server only leaves its clusters (both by cascade).
  await knex.schema.createTable('server_clusters', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'server_clusters_env_name_unique' });
  });
  await knex.schema.createTable('server_cluster_members', (t) => {
    t.uuid('cluster_id').notNullable().references('server_clusters.id').onDelete('CASCADE');
    t.uuid('server_id').notNullable().references('servers.id').onDelete('CASCADE');
    t.primary(['cluster_id', 'server_id']);
    t.index(['server_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('server_cluster_members');
  await knex.schema.dropTable('server_clusters');
}
