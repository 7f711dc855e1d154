import type { Knex } from 'knex';

// Certificates from ACME (docs/ingress.md#certificates): one row per environment and host, issued
// once for every server that serves the host. The chain and its key are sealed (secret box); the
// issuer and notAfter are read from the chain when it is stored, so listings never open it. A
// failed renewal keeps the previous chain and key in place beside the error.
//
// acme_challenges holds the HTTP-01 key authorizations while an order is open, so whichever
// replica a proxy forwards /.well-known/acme-challenge/ to answers it. acme_accounts keeps the
// installation's account key per directory URL, sealed.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('certificates', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('id').inTable('environments').onDelete('CASCADE');
    t.text('host').notNullable();
    t.text('state').notNullable().defaultTo('none');
    t.text('chain_sealed').nullable();
    t.text('key_sealed').nullable();
    t.text('issuer').nullable();
    t.text('serial').nullable();
    t.timestamp('not_after', { useTz: true }).nullable();
    t.timestamp('issued_at', { useTz: true }).nullable();
    t.text('error').nullable();
    t.integer('failures').notNullable().defaultTo(0);
    t.timestamp('last_attempt_at', { useTz: true }).nullable();
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['environment_id', 'host']);
  });
  await knex.raw(`alter table certificates add constraint certificates_state_check check (state in ('none', 'pending', 'issued', 'failed'))`);
  await knex.schema.createTable('acme_challenges', (t) => {
    t.text('token').primary();
    t.text('key_authorization').notNullable();
    t.text('host').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('acme_accounts', (t) => {
    t.text('directory_url').primary();
    t.text('key_sealed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('acme_accounts');
  await knex.schema.dropTable('acme_challenges');
  await knex.schema.dropTable('certificates');
}
