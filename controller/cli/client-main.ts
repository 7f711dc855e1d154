import { buildProgram, runProgram } from './program.js';

/**
 * Entry point of the single-file CLI served by GET /api/system/cli/{os}/{arch}: the same
 * program as the package's bin, without `serve` (no PostgreSQL, SSH or Docker clients).
 */
export async function clientMain(argv: string[]): Promise<void> {
  process.exit(await runProgram(buildProgram(), argv));
}

// no top-level await: the bundle is CommonJS
void clientMain(process.argv.slice(2));
