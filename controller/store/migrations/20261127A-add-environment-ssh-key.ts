import type { Knex } from 'knex';

// The environment's SSH private key, sealed with secretBox (never stored or returned in clear),
// with its public half and OpenSSH SHA256 fingerprint so reads can show what is configured.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('environments', (t) => {
    t.text('ssh_private_key_sealed');
    t.text('ssh_public_key');
    t.text('ssh_key_fingerprint');
    t.timestamp('ssh_key_updated_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('environments', (t) => {
    t.dropColumn('ssh_private_key_sealed');
    t.dropColumn('ssh_public_key');
    t.dropColumn('ssh_key_fingerprint');
    t.dropColumn('ssh_key_updated_at');
  });
}
