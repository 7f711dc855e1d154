import { CLI_VERSION } from '../version.js';
import { applyCommand, diffCommand, validateCommand } from './manifest-commands.js';
import { runCommand } from './run-command.js';

const USAGE = `Usage: stevedore <command>

Commands:
  validate DIR check a manifests folder offline (exit 0 valid, 1 errors)
  diff DIR     show what applying DIR would change (--url/--token or STEVEDORE_URL/STEVEDORE_TOKEN;
               exit 0 nothing would change, 2 something would, 1 error)
  apply DIR    apply DIR [--prune] [--dry-run] (same exit codes as diff)
  --version    print the CLI version

This is the downloadable client: \`stevedore serve\` needs the full installation.
`;

const commands: Record<string, (args: string[]) => Promise<number | void>> = {
  validate: validateCommand,
  diff: diffCommand,
  apply: applyCommand,
};

/**
 * Entry point of the single-file CLI served by GET /api/system/cli/{os}/{arch}: the manifest
 * commands, which only need Node and HTTP, without the server (PostgreSQL, SSH, Docker clients).
 */
export async function clientMain(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === '--version' || name === 'version') {
    process.stdout.write(`stevedore ${CLI_VERSION}\n`);
    return;
  }
  await runCommand(name, name ? commands[name] : undefined, args, USAGE);
}

// no top-level await: the bundle is CommonJS
void clientMain(process.argv.slice(2));
