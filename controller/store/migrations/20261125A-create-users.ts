import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pgcrypto');
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('name');
    t.text('role').notNullable().checkIn(['viewer', 'operator', 'admin']);
    t.text('password_hash').notNullable();
    // Bumped on password, role change or delete: JWTs carry it, so older ones stop working.
    t.integer('token_version').notNullable().defaultTo(0);
    t.integer('failed_login_count').notNullable().defaultTo(0);
    t.timestamp('last_failed_login_at', { useTz: true });
    t.timestamp('last_login_at', { useTz: true });
    t.timestamps(true, true);
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_unique ON users (lower(email))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('users');
}
