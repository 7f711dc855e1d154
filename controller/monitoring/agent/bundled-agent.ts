// The agent script shipped with the controller (stevedore-agent.sh beside this file): what an
// install uploads, and the version it carries in its AGENT_VERSION line (the only place it is written).
import { readFileSync } from 'node:fs';

let script: string | null = null;

/** The script's text, read once. */
export function bundledAgentScript(): string {
  script ??= readFileSync(new URL('./stevedore-agent.sh', import.meta.url), 'utf8');
  return script;
}

export function versionOfAgentScript(text: string): string {
  const m = /^AGENT_VERSION=([0-9A-Za-z.+-]+)$/m.exec(text);
  if (!m) throw new Error('the agent script has no AGENT_VERSION line');
  return m[1]!;
}
