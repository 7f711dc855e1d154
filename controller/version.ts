import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const VERSION: string = pkg.version;
/** The monitoring agent and CLI ship inside this package, so they carry its version. */
export const AGENT_VERSION: string = pkg.version;
export const CLI_VERSION: string = pkg.version;
