import type { Knex } from 'knex';

// Named Docker volumes as desired state (docs/volumes.md): a volume lives on one server under a
// Docker name of its own (`docker_name`, unique per server so environments never collide; a
// restore swaps it to the new volume it filled). Its backups and restores are leased like a
// database's (docs/backups.md) and kept in tables of their own, with the same columns.
/** What every backup and restore run keeps: its lease (owner, heartbeat), its times and its reason. */
function runColumns(knex: Knex, t: Knex.CreateTableBuilder): void {
  t.text('error');
  t.text('owner');
  t.timestamp('heartbeat_at', { useTz: true });
  t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('finished_at', { useTz: true });
  t.timestamps(true, true);
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('volumes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    // a server holding a volume's data is not deleted from under it
    t.uuid('server_id').notNullable().references('servers.id').onDelete('RESTRICT');
    t.text('driver').notNullable().defaultTo('local');
    t.jsonb('labels').notNullable().defaultTo('{}');
    t.jsonb('backup');
    t.timestamp('next_backup_at', { useTz: true });
    // null: the name it was created under, stevedore-<environment id>-<name> (controller/model/volume-mount.ts)
    t.text('docker_name');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'volumes_env_name_unique' });
    t.unique(['server_id', 'docker_name'], { indexName: 'volumes_server_docker_name_unique' });
  });
  await knex.schema.createTable('volume_backups', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('volume_id').notNullable().references('volumes.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('running');
    t.text('trigger').notNullable().defaultTo('manual');
    t.text('consistency').notNullable();
    t.text('storage').notNullable();
    t.text('bucket');
    t.text('object_key').notNullable();
    t.bigInteger('size_bytes');
    t.bigInteger('tar_bytes');
    t.text('sha256');
    t.boolean('pinned').notNullable().defaultTo(false);
    runColumns(knex, t);
    t.index(['volume_id', 'started_at'], 'volume_backups_volume_started');
  });
  await knex.schema.createTable('volume_restores', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('volume_id').notNullable().references('volumes.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.uuid('backup_id').references('volume_backups.id').onDelete('SET NULL');
    t.text('target').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.text('new_docker_name');
    t.text('previous_docker_name');
    t.text('check_output');
    t.integer('duration_ms');
    runColumns(knex, t);
    t.index(['volume_id', 'started_at'], 'volume_restores_volume_started');
  });
  await knex.raw(`alter table volume_backups add constraint volume_backups_status_check check (status in ('running', 'succeeded', 'failed'))`);
  await knex.raw(`alter table volume_restores add constraint volume_restores_status_check check (status in ('running', 'succeeded', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('volume_restores');
  await knex.schema.dropTable('volume_backups');
  await knex.schema.dropTable('volumes');
}
