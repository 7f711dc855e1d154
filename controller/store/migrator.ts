import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.js';
import { openLockSession } from './lock-session.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// date, a letter, a description: 20261125A-create-users.ts
const NAME = /^(\d{8}[A-Z])-[a-z0-9-]+\.ts$/;

/**
 * What a migration may need besides the database: the secret box, for one that seals values
 * stored in clear until then. Absent where no row can need it (the tests' empty template).
 */
export interface MigrationContext {
  secretBox?: SecretBox;
}

interface MigrationModule {
  up(knex: Knex, context: MigrationContext): Promise<void>;
  down(knex: Knex, context: MigrationContext): Promise<void>;
}

/** Lists migration files in order, refusing names off the pattern or two files with one key. */
export function listMigrations(dir = MIGRATIONS_DIR): string[] {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.ts')).sort();
  const seen = new Map<string, string>();
  for (const f of files) {
    const m = NAME.exec(f);
    if (!m) throw new Error(`migration file name ${f} does not match YYYYMMDDL-description.ts`);
    if (seen.has(m[1])) throw new Error(`migrations ${seen.get(m[1])} and ${f} share the key ${m[1]}`);
    seen.set(m[1], f);
  }
  return files;
}

const sourceWith = (context: MigrationContext, last?: string): Knex.MigrationSource<string> => ({
  getMigrations: async () => listMigrations().filter((f) => last === undefined || f.replace(/\.ts$/, '') <= last),
  getMigrationName: (file) => file.replace(/\.ts$/, ''),
  getMigration: async (file) => {
    // A template relative to this file, not a computed path: esbuild bundles every file the
    // pattern can match (bin/server-bundle.js), and tsx resolves it the same way.
    const m = (await import(`./migrations/${file}`)) as MigrationModule;
    return { up: (knex: Knex) => m.up(knex, context), down: (knex: Knex) => m.down(knex, context) };
  },
});

/**
 * Applies the pending migrations. With `databaseUrl`, replicas starting together take turns
 * (a session advisory lock): knex's own migration lock fails the second instead of waiting.
 */
export async function migrateLatest(knex: Knex, databaseUrl?: string, context: MigrationContext = {}): Promise<string[]> {
  const latest = () => migrateUpTo(knex, undefined, context);
  if (!databaseUrl) return latest();
  const session = await openLockSession(databaseUrl, ['stevedore', 'migrations'], () => undefined);
  try {
    while (!(await session.tryLock())) await new Promise((r) => setTimeout(r, 200));
    return await latest();
  } finally {
    await session.end();
  }
}

/** The migrations not applied yet, in the order `migrateLatest` would apply them. */
export async function pendingMigrations(knex: Knex): Promise<string[]> {
  const source = sourceWith({});
  const [, pending] = await knex.migrate.list({ migrationSource: source, tableName: 'schema_migrations' }) as [unknown[], string[]];
  return pending.map((m) => source.getMigrationName(m));
}

/**
 * Applies the migrations up to and including `last` (a name without .ts; undefined: all): a database at an
 * older release's schema, which the upgrade tests fill and then migrate to the newest.
 */
export async function migrateUpTo(knex: Knex, last: string | undefined, context: MigrationContext = {}): Promise<string[]> {
  return (await knex.migrate.latest({ migrationSource: sourceWith(context, last), tableName: 'schema_migrations' }))[1] as string[];
}
