// The only place that executes argv on a server and turns exit codes, stderr and socket failures
// into typed errors (Kamal's cli/base.rb role). Builders in commands/ produce the argv.
import type { Client, ClientChannel } from 'ssh2';
import { CommandFailed, CommandTimeout, HostError, HostUnreachable } from './errors.js';
import { describeArgv, toShellLine, type Argv } from './shell-quote.js';
import type { SshPool } from './ssh-pool.js';

export interface ExecOptions {
  /** Whole call, including waiting for a channel slot and (re)connecting. */
  timeoutMs?: number;
  stdin?: string | Buffer;
  /** false: a non-zero exit is returned instead of thrown as CommandFailed. */
  check?: boolean;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
}

export class SshDriver {
  constructor(private readonly pool: SshPool, private readonly defaultTimeoutMs = 30_000) {}

  exec(serverId: string, argv: Argv, opts: ExecOptions = {}): Promise<ExecResult> {
    const line = toShellLine(argv);
    const shown = describeArgv(argv); // what errors show: env values and passwords masked
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    let timedOut = false;
    let onTimeout = (): void => undefined;
    return new Promise<ExecResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        timedOut = true;
        onTimeout();
        reject(new CommandTimeout(serverId, shown, timeoutMs));
      }, timeoutMs);
      const run = this.pool.withChannel(serverId, async (client) => {
        // a call that timed out while queued for a slot must not run later behind the caller's back
        if (timedOut) throw new CommandTimeout(serverId, shown, timeoutMs);
        return this.runWithReconnect(serverId, client, line, opts, (cancel) => {
          if (timedOut) cancel();
          onTimeout = cancel;
        });
      });
      run.then(
        (result) => {
          clearTimeout(timer);
          if (result.code !== 0 && opts.check !== false) reject(new CommandFailed(serverId, shown, result.code, result.stderr, result.signal));
          else resolve({ stdout: result.stdout, stderr: result.stderr, code: result.code });
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof HostError ? err : new HostUnreachable(serverId, String(err), { cause: err }));
        },
      );
    });
  }

  // A pooled connection may have died silently since its last use (sshd restarted, NAT dropped
  // it); if the channel cannot even be opened, nothing ran, so one retry on a fresh one is safe.
  private async runWithReconnect(serverId: string, client: Client, line: string, opts: ExecOptions,
    setCancel: (cancel: () => void) => void): Promise<RawResult> {
    let started: Started;
    try {
      started = await startExec(serverId, client, line, opts.stdin);
    } catch {
      this.pool.discard(serverId, client);
      started = await startExec(serverId, await this.pool.connection(serverId), line, opts.stdin).catch((err: Error) => {
        throw new HostUnreachable(serverId, `cannot open a channel: ${err.message}`, { cause: err });
      });
    }
    const { channel } = started;
    setCancel(() => {
      // ask the remote process to die (OpenSSH >= 7.9 honours it), then drop the channel
      try { channel.signal('KILL'); } catch { /* channel may already be gone */ }
      channel.close();
    });
    return started.result;
  }
}

interface Started {
  channel: ClientChannel;
  result: Promise<RawResult>;
}

// Listeners are attached inside the exec callback, synchronously: ssh2 may emit the output and
// exit status from the same TCP read, before any awaiting code would get to run.
function startExec(serverId: string, client: Client, line: string, stdin?: string | Buffer): Promise<Started> {
  return new Promise((resolve, reject) => {
    try {
      client.exec(line, (err, channel) => (err ? reject(err) : resolve({ channel, result: collect(serverId, channel, stdin) })));
    } catch (err) {
      reject(err); // ssh2 throws synchronously when the connection is already closed
    }
  });
}

interface RawResult extends ExecResult {
  signal?: string;
}

function collect(serverId: string, channel: ClientChannel, stdin?: string | Buffer): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    channel.on('data', (d: Buffer) => out.push(d));
    channel.stderr.on('data', (d: Buffer) => err.push(d));
    // ssh2 passes the exit status (or signal) to 'close'; both are absent when the connection died
    channel.on('close', (code?: number | null, signal?: string) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      // no exit status and no signal: the connection went away under the command
      if (code === undefined || (code === null && !signal)) reject(new HostUnreachable(serverId, 'connection lost while the command ran'));
      else resolve({ stdout, stderr, code: code ?? -1, signal });
    });
    channel.end(stdin);
  });
}
