import { ConfigError } from '../config/parse-env.js';
import type { HttpApp } from '../serve.js';
import { CliError } from './cli-error.js';
import { buildProgram, runProgram } from './program.js';
import type { Reconcilers } from '../model/reconcilers.js';
import { serveCommand } from './serve-command.js';
import { migrateCommand } from './migrate-command.js';

/**
 * The package's bin: every client command plus `serve`. `createApp` is the API (api/app.ts) and
 * `reconcilers` the reconcilers (reconcilers/wiring.ts), handed in by bin/ so that controller/
 * never imports api/ or reconcilers/. `serve` keeps running after its action returns; every other
 * command exits with its code.
 */
export async function main(argv: string[], createApp: HttpApp, reconcilers: Reconcilers): Promise<void> {
  const program = buildProgram((p) => {
    p.command('serve').description('run the API and controller (embedded PostgreSQL when DATABASE_URL is unset)')
      .action(async () => {
        try {
          await serveCommand(createApp, reconcilers);
        } catch (e) {
          if (e instanceof ConfigError || e instanceof CliError) throw new CliError(e.message);
          throw e;
        }
      });
    p.command('migrate').description("apply the database migrations this version has and the database lacks (serve does it at start)")
      .option('--dry-run', 'only list the migrations that would run; change nothing')
      .action(async (opts: { dryRun?: boolean }) => migrateCommand(opts));
  });
  const code = await runProgram(program, argv);
  if (code !== 0 || argv[0] !== 'serve') process.exit(code);
}
