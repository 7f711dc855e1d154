import type { Knex } from 'knex';

// Scheduled restore drills of a volume (backup.drillSchedule, docs/volumes.md): the next time its
// drill runs, claimed once across replicas as next_backup_at is.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('volumes', (t) => {
    t.timestamp('next_drill_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('volumes', (t) => {
    t.dropColumn('next_drill_at');
  });
}
