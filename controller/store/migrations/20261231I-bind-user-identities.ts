import type { Knex } from 'knex';

// Single sign-on binds an identity of the provider (issuer + subject) to a user, never an e-mail
// alone: one row per bound identity, at most one per user and issuer. `users.origin` says who
// made the user: `sso` ones follow the provider's role claim, `local` ones (a password account,
// perhaps linked) do not. Users single sign-on made before this kept their subject in the
// password column as `oidc:<sub>`; the issuer was never stored, so they are bound on their next
// sign-in, by that subject (controller/auth/oidc-sign-in.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('user_identities', (t) => {
    t.text('issuer').notNullable();
    t.text('subject').notNullable();
    t.uuid('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_login_at', { useTz: true });
    t.primary(['issuer', 'subject']);
    t.unique(['user_id', 'issuer'], { indexName: 'user_identities_user_issuer_unique' });
  });
  await knex.schema.alterTable('users', (t) => {
    t.text('origin').notNullable().defaultTo('local');
  });
  await knex.raw(`alter table users add constraint users_origin_check check (origin in ('local', 'sso'))`);
  await knex.raw(`update users set origin = 'sso' where password_hash like 'oidc:%'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => t.dropColumn('origin'));
  await knex.schema.dropTable('user_identities');
}
