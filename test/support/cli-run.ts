import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CliResult { code: number; stdout: string; stderr: string }

const BIN = new URL('../../bin/stevedore.js', import.meta.url).pathname;

/**
 * The real CLI as a user runs it: `node bin/stevedore.js ARGS` as a child process, off a
 * terminal, with its own config home (XDG_CONFIG_HOME) so that no test reads another's
 * contexts or the developer's. STEVEDORE_URL/TOKEN come only from `env`.
 */
export class CliHome {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-cli-home-'));
  readonly configFile = path.join(this.dir, 'stevedore', 'config.yaml');

  run(args: string[], opts: { env?: Record<string, string>; input?: string; onStdout?: (chunk: string) => void } = {}): Promise<CliResult> & { kill: () => void } {
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: this.dir, HOME: this.dir, NO_COLOR: '1', ...opts.env };
    // only what `env` names reaches the CLI (an empty value too: it counts as unset there)
    if (opts.env?.STEVEDORE_URL === undefined) delete env.STEVEDORE_URL;
    if (opts.env?.STEVEDORE_TOKEN === undefined) delete env.STEVEDORE_TOKEN;
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => { stdout += c; opts.onStdout?.(c.toString()); });
    child.stderr.on('data', (c: Buffer) => { stderr += c; });
    child.stdin.end(opts.input ?? '');
    const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr })));
    return Object.assign(done, { kill: () => { child.kill('SIGINT'); } });
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
