import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The monitoring agent of a server: its token (SHA-256 only, like API tokens) and what the
  // controller last heard from it. One row per server at most; the server's deletion removes it.
  await knex.schema.createTable('server_agents', (t) => {
    t.uuid('server_id').primary().references('servers.id').onDelete('CASCADE');
    t.text('token_hash').notNullable();
    t.text('token_prefix').notNullable();
    t.timestamp('token_created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // where the installed agent posts: kept so a regenerated token can be handed to it
    t.text('controller_url');
    t.timestamp('last_config_at', { useTz: true });
    t.timestamp('last_ingest_at', { useTz: true });
    /** The version the agent announced on its last request (X-Agent-Version). */
    t.text('last_version');
    t.unique(['token_hash'], { indexName: 'server_agents_token_hash_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('server_agents');
}
