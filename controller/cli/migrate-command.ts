import { loadConfig } from '../config/config.js';
import { SecretBox } from '../crypto/secret-box.js';
import { createKnex } from '../store/knex.js';
import { migrateLatest, pendingMigrations } from '../store/migrator.js';
import { CliError } from './cli-error.js';

/**
 * `stevedore migrate [--dry-run]`: brings the database DATABASE_URL names to this version's schema
 * (what `serve` does at start), or with --dry-run only lists what that would apply, changing
 * nothing. Before an upgrade, the dry run of the new version says what it will do (docs/upgrading.md).
 */
export async function migrateCommand(opts: { dryRun?: boolean }, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    throw new CliError('set DATABASE_URL: migrate works on a database of your own (serve migrates the embedded one at start)');
  }
  const db = createKnex(config.databaseUrl, 2);
  try {
    const names = opts.dryRun
      ? await pendingMigrations(db)
      : await migrateLatest(db, config.databaseUrl, { secretBox: new SecretBox(config.secretsKey) });
    for (const name of names) out.write(`${name}\n`);
    const verb = opts.dryRun ? 'would apply' : 'applied';
    out.write(names.length ? `${verb} ${names.length} migration(s)\n` : 'the database is up to date\n');
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`migrate: ${(e as Error).message}`);
  } finally {
    await db.destroy();
  }
}
