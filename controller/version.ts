import { createRequire } from 'node:module';
import { bundledAgentScript, versionOfAgentScript } from './monitoring/agent/bundled-agent.js';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

export const VERSION: string = pkg.version;
/** The monitoring agent is a shell script with its own version line (controller/monitoring/agent/). */
export const AGENT_VERSION: string = versionOfAgentScript(bundledAgentScript());
/** The CLI ships inside this package, so it carries its version. */
export const CLI_VERSION: string = pkg.version;
