import type { Knex } from 'knex';

// Per-environment roles: a member's role in one environment, never above the user's own role
// (the global role is the ceiling; the check takes the lower of the two). A user with no row
// for an environment keeps the global role there.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('environment_members', (t) => {
    t.uuid('environment_id').notNullable().references('id').inTable('environments').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.text('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['environment_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.raw(`alter table environment_members add constraint environment_members_role_check check (role in ('viewer', 'operator', 'admin'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('environment_members');
}
