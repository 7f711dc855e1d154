// Streaming exec: a long command whose stdout (a database dump) or stdin (a restore) is far too
// big to buffer. The caller pipes the streams; `exit` settles when the remote process ends.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { HostUnreachable } from './errors.js';
import { toShellLine, type Argv } from './shell-quote.js';
import type { SshPool } from './ssh-pool.js';

export interface StreamExit {
  code: number | null;
  signal?: string;
  /** The last few KB of stderr, for the reason of a failure. */
  stderr: string;
}

export interface ExecStream {
  stdout: Readable;
  stdin: Writable;
  exit: Promise<StreamExit>;
  /** Kill the remote process (the caller gave up: storage failed, shutdown). */
  kill(): void;
}

const STDERR_KEPT = 8192;

function tail(buffers: Buffer[], chunk: Buffer): void {
  buffers.push(chunk);
  let size = buffers.reduce((n, b) => n + b.length, 0);
  while (size > STDERR_KEPT && buffers.length > 1) size -= buffers.shift()!.length;
}

/** Over the pooled SSH connection; the channel slot is held until the process exits. */
export async function sshStream(pool: SshPool, serverId: string, argv: Argv): Promise<ExecStream> {
  const line = toShellLine(argv);
  const { client, release } = await pool.acquireChannel(serverId);
  let channel: ClientChannel;
  try {
    channel = await new Promise<ClientChannel>((resolve, reject) => {
      try {
        client.exec(line, (err, ch) => (err ? reject(err) : resolve(ch)));
      } catch (err) {
        reject(err);
      }
    });
  } catch (err) {
    release();
    throw new HostUnreachable(serverId, `cannot open a channel: ${(err as Error).message}`, { cause: err });
  }
  const err: Buffer[] = [];
  channel.stderr.on('data', (d: Buffer) => tail(err, d));
  const exit = new Promise<StreamExit>((resolve) => {
    channel.on('close', (code?: number | null, signal?: string) => {
      release();
      const stderr = Buffer.concat(err).toString('utf8');
      // no status and no signal: the connection went away under the command
      resolve({ code: code ?? null, signal: signal ?? (code === undefined ? 'connection lost' : undefined), stderr });
    });
  });
  return {
    stdout: channel, stdin: channel, exit,
    kill() {
      try { channel.signal('KILL'); } catch { /* already gone */ }
      channel.close();
    },
  };
}

/** Socket mode: the controller's own machine, argv straight to execve. */
export function localStream(argv: Argv): ExecStream {
  toShellLine(argv); // rejects NUL like the ssh path
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  const err: Buffer[] = [];
  child.stderr.on('data', (d: Buffer) => tail(err, d));
  child.stdin.on('error', () => undefined);
  const exit = new Promise<StreamExit>((resolve) => {
    child.on('error', (e) => resolve({ code: 127, stderr: e.message }));
    child.on('close', (code, signal) => resolve({ code, signal: signal ?? undefined, stderr: Buffer.concat(err).toString('utf8') }));
  });
  return { stdout: child.stdout, stdin: child.stdin, exit, kill: () => child.kill('SIGKILL') };
}
