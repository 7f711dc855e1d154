import type { Knex } from 'knex';

// Deleting a server or a deployment cascades into health_logs, and the hourly prune deletes by age
// across environments: without these each was a scan of a table that grows by one row per check.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('health_logs', (t) => {
    t.index(['server_id']);
    t.index(['deployment_id']);
    t.index(['checked_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('health_logs', (t) => {
    t.dropIndex(['server_id']);
    t.dropIndex(['deployment_id']);
    t.dropIndex(['checked_at']);
  });
}
