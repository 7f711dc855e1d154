import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per bootstrap of a server (detect the distribution, install and start Docker), its
  // steps written as they happen so that a client polls the status.
  await knex.schema.createTable('server_bootstrap_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('server_id').notNullable().references('servers.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.jsonb('distribution');
    t.jsonb('steps').notNullable().defaultTo('[]');
    t.text('error');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['server_id', 'started_at']);
  });
  // at most one bootstrap runs on a server at a time
  await knex.raw(`CREATE UNIQUE INDEX server_bootstrap_runs_one_running ON server_bootstrap_runs (server_id) WHERE status = 'running'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('server_bootstrap_runs');
}
