import { ConfigError } from '../config/parse-env.js';
import type { HttpApp } from '../serve.js';
import type { Reconcilers } from '../model/reconcilers.js';
import { serveCommand } from './serve-command.js';
import { applyCommand, diffCommand, validateCommand } from './manifest-commands.js';
import { runCommand } from './run-command.js';

const USAGE = `Usage: stevedore <command>

Commands:
  serve        run the API and controller (embedded PostgreSQL when DATABASE_URL is unset)
  validate DIR check a manifests folder offline (exit 0 valid, 1 errors)
  diff DIR     show what applying DIR would change (--url/--token or STEVEDORE_URL/STEVEDORE_TOKEN;
               exit 0 nothing would change, 2 something would, 1 error)
  apply DIR    apply DIR [--prune] [--dry-run] (same exit codes as diff)
`;

const commands = (createApp: HttpApp, reconcilers: Reconcilers): Record<string, (args: string[]) => Promise<number | void>> => ({
  serve: () => serveCommand(createApp, reconcilers),
  validate: validateCommand,
  diff: diffCommand,
  apply: applyCommand,
});

/**
 * `createApp` is the API (api/app.ts) and `reconcilers` the reconcilers (reconcilers/wiring.ts),
 * handed in by bin/ so that controller/ never imports api/ or reconcilers/.
 */
export async function main(argv: string[], createApp: HttpApp, reconcilers: Reconcilers): Promise<void> {
  const [name, ...args] = argv;
  await runCommand(name, name ? commands(createApp, reconcilers)[name] : undefined, args, USAGE, (e) => e instanceof ConfigError);
}
