import { spawn } from 'node:child_process';

/** A git command that failed: its stderr, cleaned of anything that looked like a credential. */
export class GitError extends Error {
  constructor(message: string, readonly stderr: string) {
    super(message);
    this.name = 'GitError';
  }
}

export interface RunGitOptions {
  cwd?: string;
  /** Added to the scrubbed environment (credentials travel here, never in argv). */
  env?: Record<string, string>;
  /** `-c key=value` settings, before the subcommand. */
  config?: string[];
  input?: string;
  timeoutMs?: number;
  /** Values never to appear in an error message (a token, a user name). */
  redact?: string[];
}

/**
 * Runs the `git` program with an argument array (no shell), in an environment of its own: no
 * user or system config, no terminal prompt, only the transports a source may use.
 */
export function runGit(argv: string[], o: RunGitOptions = {}): Promise<Buffer> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.cwd ?? '/nonexistent',
    LANG: 'C', LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ALLOW_PROTOCOL: 'file:https:http:ssh:git',
    GIT_SSH_COMMAND: 'ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/dev/null',
    ...o.env,
  };
  const args = [...(o.config ?? []).flatMap((c) => ['-c', c]), ...argv];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 120_000);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new GitError(`git could not be started: ${e.message}`, ''));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(Buffer.concat(out));
      let stderr = Buffer.concat(err).toString('utf8');
      for (const v of o.redact ?? []) if (v) stderr = stderr.split(v).join('***');
      stderr = stderr.replace(/(\/\/)[^/@\s]+@/g, '$1***@').trim();
      const why = signal ? `was stopped after ${Math.round((o.timeoutMs ?? 120_000) / 1000)} s` : `exited with ${code}`;
      reject(new GitError(`git ${argv[0]} ${why}${stderr ? `: ${lastLines(stderr)}` : ''}`, stderr));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
  });
}

const lastLines = (s: string) => s.split('\n').filter((l) => l.trim()).slice(-3).join(' / ').slice(0, 1000);
