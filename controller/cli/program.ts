import { Command, CommanderError } from 'commander';
import { CLI_VERSION } from '../version.js';
import { CliError, EXIT } from './cli-error.js';
import { takeExitCode } from './exit-code.js';
import { registerContextCommands } from './commands/context.js';
import { registerGetCommands } from './commands/get.js';
import { registerDeployCommands } from './commands/deploy.js';
import { registerLogsCommands } from './commands/logs.js';
import { registerExecCommands } from './commands/exec.js';
import { registerRunCommands } from './commands/run.js';
import { registerJobCommands } from './commands/job.js';
import { registerManifestCommands } from './manifest-commands.js';
import { registerCompletion } from './commands/completion.js';
import { registerExportCommands } from './commands/export.js';
import { registerObjectCommands } from './commands/objects.js';
import { registerObserveCommands } from './commands/observe.js';
import { registerSyncCommands } from './commands/sync.js';

/** Adds `serve` (and anything else only the full installation has) to the program. */
export type ExtraCommands = (program: Command) => void;

/**
 * The whole CLI, for the package's bin and for the download bundle alike (which has no
 * `serve`). Commander parses; every error leaves through `runProgram` as one line and an
 * exit code: 0 success, 1 error, 2 only from diff/apply --detailed-exitcode, 64 usage.
 */
export function buildProgram(extra?: ExtraCommands): Command {
  const program = new Command('stevedore')
    .description('Deploy and inspect containers through a Stevedore controller')
    .version(`stevedore ${CLI_VERSION}`, '-V, --version', 'print the CLI version')
    .option('--url <url>', 'controller URL (default: STEVEDORE_URL, then the current context)')
    .option('--token <token>', 'API token or JWT (default: STEVEDORE_TOKEN, then the context)')
    .option('--context <name>', 'use this context of the config file')
    .option('--no-color', 'no colours or live display, plain lines')
    .option('--debug', 'print the stack of an unexpected error')
    .showSuggestionAfterError()
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'stevedore: ')) })
    .configureHelp({ sortSubcommands: false });
  extra?.(program);
  registerManifestCommands(program);
  registerContextCommands(program);
  registerGetCommands(program);
  registerDeployCommands(program);
  registerObjectCommands(program);
  registerLogsCommands(program);
  registerObserveCommands(program);
  registerExecCommands(program);
  registerRunCommands(program);
  registerJobCommands(program);
  registerExportCommands(program);
  registerSyncCommands(program);
  registerCompletion(program);
  return program;
}


function exitOverrideAll(cmd: Command): void {
  cmd.exitOverride();
  for (const c of cmd.commands) exitOverrideAll(c);
}

/** Runs argv, writes errors as one line and answers the exit code (never calls process.exit). */
export async function runProgram(program: Command, argv: string[]): Promise<number> {
  exitOverrideAll(program);
  if (!argv.length) {
    process.stderr.write(program.helpInformation());
    return EXIT.usage;
  }
  takeExitCode();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return takeExitCode();
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version are success; everything else commander reports is a usage mistake (it has printed it)
      if (['commander.helpDisplayed', 'commander.version'].includes(e.code)) return EXIT.ok;
      return e.code === 'commander.help' && e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const debug = argv.includes('--debug');
    if (e instanceof CliError) {
      process.stderr.write(`stevedore: ${e.message}\n`);
      if (debug && e.stack) process.stderr.write(`${e.stack}\n`);
      return e.exitCode;
    }
    process.stderr.write(debug ? `stevedore: ${(e as Error).stack ?? String(e)}\n` : `stevedore: ${firstLine(e)} (--debug shows the stack)\n`);
    return EXIT.error;
  }
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];
