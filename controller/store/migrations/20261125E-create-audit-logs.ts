import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // No foreign keys: the trail outlives what it describes.
  await knex.schema.createTable('audit_logs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('actor_type').notNullable();
    t.uuid('actor_id');
    t.text('actor_name');
    t.text('action').notNullable();
    t.text('resource_type').notNullable();
    t.text('resource_id');
    t.uuid('environment_id');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.text('request_id');
    t.text('ip');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['environment_id', 'created_at']);
    t.index(['resource_type', 'resource_id']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_logs');
}
