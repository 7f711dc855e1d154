import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('servers', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('hostname').notNullable();
    t.integer('ssh_port').notNullable().defaultTo(22);
    t.text('ssh_user').notNullable();
    t.text('docker_mode').notNullable().checkIn(['ssh', 'socket']);
    t.text('metrics_mode').notNullable().defaultTo('disabled').checkIn(['disabled', 'ssh', 'agent']);
    t.jsonb('tags').notNullable().defaultTo('[]');
    // Pinned on first successful connection; a different key later is refused.
    t.text('host_key_fingerprint');
    t.text('health_status').notNullable().defaultTo('unknown').checkIn(['healthy', 'unhealthy', 'unknown']);
    t.timestamp('health_checked_at', { useTz: true });
    t.text('health_message');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'servers_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('servers');
}
