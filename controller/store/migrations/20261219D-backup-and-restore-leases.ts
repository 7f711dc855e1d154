import type { Knex } from 'knex';

// A running backup or restore is leased like a plan: the replica running it (`owner`) renews
// `heartbeat_at`; once the lease ran out, any live replica marks it failed (no process will
// finish it). Rows from before this migration have no heartbeat: their start time stands in.
export async function up(knex: Knex): Promise<void> {
  for (const table of ['backups', 'restores']) {
    await knex.schema.alterTable(table, (t) => {
      t.text('owner');
      t.timestamp('heartbeat_at', { useTz: true });
    });
    await knex.raw(`CREATE INDEX ${table}_running ON ${table} (heartbeat_at) WHERE status = 'running'`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['backups', 'restores']) {
    await knex.raw(`DROP INDEX IF EXISTS ${table}_running`);
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('owner');
      t.dropColumn('heartbeat_at');
    });
  }
}
