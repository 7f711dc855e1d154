import { UsageError } from './manifest-commands.js';

export type CliCommand = (args: string[]) => Promise<number | void>;

const isUsage = (e: unknown) => e instanceof UsageError
  || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true || (e as { code?: string }).code === 'ENOENT';

/**
 * Runs one CLI command and exits with its code: an unknown name prints the usage (64), a usage
 * error prints its message alone, anything else its stack. `alsoUsage` names errors a caller
 * reports as plain messages too (the full CLI's ConfigError; the download bundle has none).
 */
export async function runCommand(name: string | undefined, command: CliCommand | undefined, args: string[], usage: string,
  alsoUsage: (e: unknown) => boolean = () => false): Promise<void> {
  if (!command) {
    process.stderr.write(usage);
    process.exit(name ? 64 : 0);
  }
  try {
    const code = await command(args);
    if (typeof code === 'number') process.exit(code);
  } catch (e) {
    process.stderr.write(`stevedore ${name}: ${isUsage(e) || alsoUsage(e) ? (e as Error).message : (e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  }
}
