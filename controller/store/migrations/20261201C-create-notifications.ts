import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // In-app notifications, one row per user.
  await knex.schema.createTable('notifications', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.bigInteger('event_id');
    t.text('type').notNullable();
    t.text('category').notNullable();
    t.text('severity').notNullable();
    t.uuid('environment_id').references('environments.id').onDelete('CASCADE');
    t.text('title').notNullable();
    t.text('message').notNullable();
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('read_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['user_id', 'event_id'], { indexName: 'notifications_user_event_unique' });
    t.index(['user_id', 'created_at']);
  });
  await knex.raw('CREATE INDEX notifications_unread ON notifications (user_id) WHERE read_at IS NULL');
  // Per-user, per-type channel choices; a missing row means the type's defaults.
  await knex.schema.createTable('notification_preferences', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.boolean('in_app').notNullable();
    t.boolean('email').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'type']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_preferences');
  await knex.schema.dropTable('notifications');
}
