import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One dump of a database: where it is stored, its size and SHA-256 (of the stored, compressed
  // bytes), and whether it succeeded (dump exited 0 and the stored object re-read matches).
  await knex.schema.createTable('backups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('running');
    t.text('trigger').notNullable().defaultTo('manual');
    t.text('storage').notNullable();
    t.text('bucket');
    t.text('object_key').notNullable();
    t.bigInteger('size_bytes');
    t.text('sha256');
    t.boolean('pinned').notNullable().defaultTo(false);
    t.text('error');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['database_id', 'started_at'], 'backups_database_started');
  });
  // Restores and restore drills: which backup went where, how long it took, what the check said.
  await knex.schema.createTable('restores', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('backup_id').references('backups.id').onDelete('SET NULL');
    t.uuid('safety_backup_id').references('backups.id').onDelete('SET NULL');
    t.text('target').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.text('scratch_container');
    t.text('check_output');
    t.integer('duration_ms');
    t.text('error');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['database_id', 'started_at'], 'restores_database_started');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('restores');
  await knex.schema.dropTable('backups');
}
