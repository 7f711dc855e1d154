import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('api_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.text('token_hash').notNullable().unique('api_tokens_hash_unique');
    t.text('token_prefix').notNullable();
    t.uuid('owner_user_id').references('users.id').onDelete('CASCADE');
    t.uuid('owner_service_account_id').references('service_accounts.id').onDelete('CASCADE');
    t.text('role').checkIn(['viewer', 'operator', 'admin']);
    // null: every environment; otherwise the token is limited to these (Authentication rule 4).
    t.specificType('environment_ids', 'uuid[]');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_one_owner
    CHECK ((owner_user_id IS NULL) <> (owner_service_account_id IS NULL))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_tokens');
}
