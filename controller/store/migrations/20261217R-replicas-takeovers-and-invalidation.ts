import type { Knex } from 'knex';

// Two controller replicas on one database (docs/replicas.md).
// - deployment_plans.takeovers: how often another replica took a plan over after its runner's
//   lease ran out; past a few, the plan ends failed instead of being resumed again.
// - Writes that change who a token stands for, or the cached system settings, NOTIFY every
//   replica at commit (channel stevedore_invalidate, payload 'auth' or 'settings'), whoever made
//   them, so each replica drops its cache at once. Only the columns authentication reads fire:
//   api_tokens.last_used_at (touched on use) does not.
const AUTH_FN = `CREATE OR REPLACE FUNCTION stevedore_notify_auth() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_notify('stevedore_invalidate', 'auth'); RETURN NULL; END $$`;
const SETTINGS_FN = `CREATE OR REPLACE FUNCTION stevedore_notify_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_notify('stevedore_invalidate', 'settings'); RETURN NULL; END $$`;

const TRIGGERS: Array<[table: string, when: string, fn: string]> = [
  ['api_tokens', 'UPDATE OF revoked_at, expires_at, role, environment_ids, owner_user_id, owner_service_account_id OR DELETE', 'stevedore_notify_auth'],
  ['users', 'UPDATE OF role, token_version, email OR DELETE', 'stevedore_notify_auth'],
  ['service_accounts', 'UPDATE OF role, disabled, name OR DELETE', 'stevedore_notify_auth'],
  ['system_settings', 'INSERT OR UPDATE OR DELETE', 'stevedore_notify_settings'],
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE deployment_plans ADD COLUMN IF NOT EXISTS takeovers integer NOT NULL DEFAULT 0');
  await knex.raw(AUTH_FN);
  await knex.raw(SETTINGS_FN);
  for (const [table, when, fn] of TRIGGERS) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${table}_notify_replicas ON ${table}`);
    await knex.raw(`CREATE TRIGGER ${table}_notify_replicas AFTER ${when} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table] of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${table}_notify_replicas ON ${table}`);
  await knex.raw('DROP FUNCTION IF EXISTS stevedore_notify_auth()');
  await knex.raw('DROP FUNCTION IF EXISTS stevedore_notify_settings()');
  await knex.raw('ALTER TABLE deployment_plans DROP COLUMN IF EXISTS takeovers');
}
