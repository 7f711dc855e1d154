import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Sealed earlier values of secrets (kept after rotation or delete): a dry-run diff reads the
  // file on disk, which may still hold an old value, and must redact that too.
  await knex.schema.createTable('secret_value_history', (t) => {
    t.bigIncrements('id');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('value_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['environment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('secret_value_history');
}
