import { ConfigError } from '../config/parse-env.js';
import { serveCommand } from './serve-command.js';

const USAGE = `Usage: stevedore <command>

Commands:
  serve        run the API and controller (embedded PostgreSQL when DATABASE_URL is unset)
`;

const commands: Record<string, (args: string[]) => Promise<number | void>> = {
  serve: () => serveCommand(),
};

export async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(USAGE);
    process.exit(name ? 64 : 0);
  }
  try {
    const code = await command(args);
    if (typeof code === 'number') process.exit(code);
  } catch (e) {
    process.stderr.write(`stevedore ${name}: ${e instanceof ConfigError ? e.message : (e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  }
}
