// Database commands run inside their container: `docker exec` of a database type's argv, the
// password handed over as an environment variable of the exec (never as an argument of the tool).
import type { Argv } from '../shell-quote.js';

export interface ExecInContainer {
  container: string;
  argv: Argv;
  env?: Record<string, string>;
  /** Keep stdin open (restores read the dump from it). */
  stdin?: boolean;
}

export function dockerExec(o: ExecInContainer): string[] {
  const out = ['docker', 'exec'];
  if (o.stdin) out.push('--interactive');
  for (const [k, v] of Object.entries(o.env ?? {}).sort(([a], [b]) => a.localeCompare(b))) out.push('--env', `${k}=${v}`);
  return [...out, o.container, ...o.argv];
}

/** Replaces {{database}}, {{user}} and {{query}} in each element of a type's command. */
export function fillTokens(argv: Argv, values: { database: string; user: string; query?: string }): string[] {
  return argv.map((a) => a.replace(/\{\{(database|user|query)\}\}/g, (_m, k: 'database' | 'user' | 'query') => values[k] ?? ''));
}
