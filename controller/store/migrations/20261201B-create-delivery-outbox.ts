import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The durable outbox of every outgoing message (webhook, subscription, chat, email) and, for
  // subscriptions, their delivery history. Claimed with FOR UPDATE SKIP LOCKED under a lease.
  await knex.schema.createTable('delivery_outbox', (t) => {
    t.bigIncrements('id').primary();
    t.text('kind').notNullable(); // webhook | subscription | chat | email
    t.uuid('target_id').notNullable();
    t.bigInteger('event_id');
    t.text('event_type').notNullable();
    t.uuid('environment_id');
    // The exact bytes sent (JSON), fixed at fan-out so every retry sends the same body.
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('pending'); // pending | delivering | succeeded | failed
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('lease_until', { useTz: true });
    t.text('lease_owner');
    t.integer('last_status');
    t.text('last_error');
    t.integer('duration_ms');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.index(['kind', 'target_id', 'id']);
  });
  await knex.raw(`CREATE UNIQUE INDEX delivery_outbox_event_unique ON delivery_outbox (kind, target_id, event_id) WHERE event_id IS NOT NULL`);
  await knex.raw(`CREATE INDEX delivery_outbox_ready ON delivery_outbox (next_attempt_at) WHERE status IN ('pending', 'delivering')`);
  // A lane's claim walks only the receiver's unfinished rows, however long its history.
  await knex.raw(`CREATE INDEX delivery_outbox_active ON delivery_outbox (kind, target_id, id) WHERE status IN ('pending', 'delivering')`);
  // The fan-out looks for notification-type events of the last 7 days: by type, not through every
  // plan.step and log event of the week.
  await knex.raw('CREATE INDEX events_type_created ON events (type, created_at)');
  // Which bus events have been fanned out (notifications + outbox rows written in the same transaction).
  await knex.schema.createTable('event_fanouts', (t) => {
    t.bigInteger('event_id').primary();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  // Consecutive-occurrence counts behind notification types' bounce thresholds.
  await knex.schema.createTable('notification_bounces', (t) => {
    t.text('key').primary();
    t.integer('count').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS events_type_created');
  await knex.schema.dropTable('notification_bounces');
  await knex.schema.dropTable('event_fanouts');
  await knex.schema.dropTable('delivery_outbox');
}
