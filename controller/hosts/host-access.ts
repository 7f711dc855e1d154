// THE way the rest of the controller reaches a server by id. It reads the server row and the
// environment's sealed SSH key from the database, keeps exactly one pooled ssh connection per
// server (re-registered when the connection fields or the key change), pins the host key on first
// use (persisted in servers.host_key_fingerprint) and refuses a changed one with HostKeyMismatch.
// Socket-mode servers (the controller's own machine) run commands locally, without a shell, and
// reach Docker through the local socket. Every command is an argv: nothing is ever a shell string.
import { spawn } from 'node:child_process';
import { ContainerEventBus } from './container-event-bus.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import type { SecretBox } from '../crypto/secret-box.js';
import { notFound } from '../errors/app-error.js';
import type { Logger } from '../logger.js';
import type { ServerWithKeyRow, ServersRepository } from '../store/repositories/servers.js';
import type { ComposeFlavor } from './commands/compose.js';
import { ComposeDetector } from './compose-detect.js';
import { DockerClients } from './docker-client.js';
import { CommandFailed, CommandTimeout, SshConfigInvalid, rememberServerName } from './errors.js';
import { DEFAULT_REMOTE_DOCKER_SOCKET, type HostServer } from './server.js';
import { readFile as sftpReadFile, writeFileAtomic, type WriteFileOptions } from './sftp.js';
import { describeArgv, toShellLine, type Argv } from './shell-quote.js';
import { SshDriver, type ExecOptions, type ExecResult } from './ssh-driver.js';
import { SshPool } from './ssh-pool.js';
import { localStream, sshStream, type ExecStream } from './ssh-stream.js';
import { assertNotProtected } from './protected-paths.js';
import { localTcpConnect, sshTcpConnect, type TcpConnection } from './tcp-connect.js';

export type { ExecOptions, ExecResult } from './ssh-driver.js';
export type { ExecStream, StreamExit } from './ssh-stream.js';
export type { WriteFileOptions } from './sftp.js';

/** The environment has no SSH key (PUT /api/environments/{envId}/ssh-key first). */
export class SshKeyMissing extends SshConfigInvalid {
  constructor(serverId: string) {
    super(serverId, 'the environment has no SSH key configured');
  }
}

/** The compose CLI a server has: `argv` is the prefix (docker compose | docker-compose). */
export interface ComposeCli {
  flavor: ComposeFlavor;
  argv: string[];
}

export interface HostAccessOptions {
  /** ssh handshake deadline (a black-hole host fails after this). Default 5000. */
  connectTimeoutMs?: number;
  /** Default per-command deadline. Default 30000. */
  commandTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  maxChannelsPerConnection?: number;
  /** Directories a socket-mode server (this machine) must never read or write: the state dir. */
  protectedPaths?: string[];
}

interface Known {
  environmentId: string;
  mode: 'ssh' | 'socket';
  signature: string;
  fingerprint: string | null;
  socketDocker?: Docker;
}


export class HostAccess {
  readonly pool: SshPool;
  readonly driver: SshDriver;
  /** Docker events of managed containers, published by the watches, awaited by deploys. */
  readonly containerEvents = new ContainerEventBus();
  private readonly dockers: DockerClients;
  private readonly composeDetector: ComposeDetector;
  private readonly known = new Map<string, Known>();
  private readonly commandTimeoutMs: number;
  private readonly protectedPaths: string[];

  constructor(private readonly servers: ServersRepository, private readonly secretBox: SecretBox, private readonly logger: Logger,
    opts: HostAccessOptions = {}) {
    this.commandTimeoutMs = opts.commandTimeoutMs ?? 30_000;
    this.protectedPaths = opts.protectedPaths ?? [];
    this.pool = new SshPool({
      connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
      keepaliveIntervalMs: opts.keepaliveIntervalMs ?? 5000,
      maxChannelsPerConnection: opts.maxChannelsPerConnection ?? 10,
      onNewHostKey: (serverId, fingerprint) => this.pinHostKey(serverId, fingerprint),
    });
    this.driver = new SshDriver(this.pool, this.commandTimeoutMs);
    this.dockers = new DockerClients(this.pool);
    // the detector only needs exec: hand it ours so socket-mode servers are detected locally
    const execOnly = { exec: (id: string, argv: Argv, o?: ExecOptions) => this.exec(id, argv, o) };
    this.composeDetector = new ComposeDetector(execOnly as unknown as SshDriver);
  }

  /** Runs argv on the server (each element one word, never interpreted by a shell). */
  async exec(serverId: string, argv: Argv, opts: ExecOptions = {}): Promise<ExecResult> {
    const known = await this.ensure(serverId);
    if (known.mode === 'socket') return execLocal(serverId, argv, { ...opts, timeoutMs: opts.timeoutMs ?? this.commandTimeoutMs });
    return this.driver.exec(serverId, argv, opts);
  }

  /**
   * Starts argv on the server with its stdin and stdout as streams (dumps and restores, too big
   * to buffer). The caller must consume stdout and end stdin; `exit` tells how it ended.
   */
  async stream(serverId: string, argv: Argv): Promise<ExecStream> {
    const known = await this.ensure(serverId);
    if (known.mode === 'socket') return localStream(argv);
    return sshStream(this.pool, serverId, argv);
  }

  /**
   * dockerode for the server: over the pooled ssh connection, or the local socket. `row`: the
   * server's row with its environment key when the caller has just read it (a batch of looks
   * reads them together); checked the same way as a row read here.
   */
  async docker(serverId: string, row?: ServerWithKeyRow): Promise<Docker> {
    const known = await this.ensure(serverId, row);
    if (known.mode === 'socket') return known.socketDocker!;
    return this.dockers.for(serverId);
  }

  /** Atomic write (temp file + rename in the same directory); mode defaults to 0600. */
  async writeFile(serverId: string, filePath: string, content: string | Buffer, opts: WriteFileOptions = {}): Promise<void> {
    const known = await this.ensure(serverId);
    if (known.mode === 'socket') {
      await assertNotProtected(filePath, this.protectedPaths);
      return writeLocalAtomic(filePath, content, opts.mode ?? 0o600);
    }
    return writeFileAtomic(this.pool, serverId, filePath, content, opts);
  }

  /** The file's bytes, or null when it does not exist. */
  async readFile(serverId: string, filePath: string): Promise<Buffer | null> {
    const known = await this.ensure(serverId);
    if (known.mode === 'socket') {
      await assertNotProtected(filePath, this.protectedPaths);
      return fs.readFile(filePath).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
    }
    return sftpReadFile(this.pool, serverId, filePath);
  }

  /** A TCP connection to host:port opened from the server (see tcp-connect.ts); the caller closes it. */
  async connectTcp(serverId: string, host: string, port: number): Promise<TcpConnection> {
    const known = await this.ensure(serverId);
    if (known.mode === 'socket') return localTcpConnect(host, port);
    return sshTcpConnect(this.pool, serverId, host, port);
  }

  /** The compose CLI of the server, detected once (docker compose preferred, docker-compose fallback). */
  async compose(serverId: string): Promise<ComposeCli> {
    await this.ensure(serverId);
    const flavor = await this.composeDetector.flavor(serverId);
    return { flavor, argv: flavor === 'plugin' ? ['docker', 'compose'] : ['docker-compose'] };
  }

  /** Forget a server's connection and caches (its row changed or was deleted). */
  invalidate(serverId: string): void {
    this.known.delete(serverId);
    this.composeDetector.forget(serverId);
    this.dockers.forget(serverId);
    this.pool.unregister(serverId);
  }

  /** Forget every server of an environment (its SSH key changed or was removed). */
  invalidateEnvironment(environmentId: string): void {
    for (const [id, k] of [...this.known]) if (k.environmentId === environmentId) this.invalidate(id);
  }

  /** Forget every server not in `serverIds` (deleted meanwhile, e.g. with their environment). */
  retain(serverIds: Iterable<string>): void {
    const keep = new Set(serverIds);
    for (const id of [...this.known.keys()]) if (!keep.has(id)) this.invalidate(id);
  }

  async close(): Promise<void> {
    this.known.clear();
    await this.pool.close();
  }

  /**
   * Loads the server and its environment's key and makes sure the pool holds exactly these
   * settings. One small query per call, so a change made by another replica is seen at once.
   */
  private async ensure(serverId: string, loaded?: ServerWithKeyRow): Promise<Known> {
    const row = loaded?.id === serverId ? loaded : await this.load(serverId);
    rememberServerName(serverId, row.name);
    const signature = [row.hostname, row.sshPort, row.sshUser, row.dockerMode, row.dockerSocketPath ?? '',
      row.sshPrivateKeySealed ?? ''].join('\u0000');
    const current = this.known.get(serverId);
    if (current && current.signature === signature && current.fingerprint !== null && row.hostKeyFingerprint === null) {
      // No pin in the row while this process holds one: a row read before our own pin landed, or
      // the key was forgotten (ssh-keygen -R) elsewhere. Either way the open connection stays (closing
      // it would cut every call in flight on it, as ssh keeps open sessions), and the next
      // connection trusts on first use again; pinHostKey then checks the key against the row.
      if (current.mode === 'ssh') this.pool.forgetPin(serverId);
      return current;
    }
    if (current && current.signature === signature && current.fingerprint === row.hostKeyFingerprint) return current;
    if (current) this.invalidate(serverId);
    const known: Known = { environmentId: row.environmentId, mode: row.dockerMode, signature, fingerprint: row.hostKeyFingerprint };
    if (row.dockerMode === 'socket') {
      known.socketDocker = new Docker({ socketPath: row.dockerSocketPath ?? DEFAULT_REMOTE_DOCKER_SOCKET });
    } else {
      if (!row.sshPrivateKeySealed) throw new SshKeyMissing(serverId);
      let privateKey: string;
      try {
        privateKey = this.secretBox.open(row.sshPrivateKeySealed);
      } catch (err) {
        throw new SshConfigInvalid(serverId, 'the environment SSH key cannot be decrypted (was SECRETS_KEY changed?)', { cause: err });
      }
      const server: HostServer = {
        id: row.id, hostname: row.hostname, sshPort: row.sshPort, sshUser: row.sshUser, dockerMode: 'ssh',
        hostKeyFingerprint: row.hostKeyFingerprint, ...(row.dockerSocketPath ? { dockerSocketPath: row.dockerSocketPath } : {}),
      };
      this.pool.register(server, privateKey);
    }
    this.known.set(serverId, known);
    return known;
  }

  private async load(serverId: string): Promise<ServerWithKeyRow> {
    const row = await this.servers.withEnvironmentKey(serverId);
    if (!row) throw notFound('Server');
    return row;
  }

  // Trust on first use: only a server with no pinned key takes one; a concurrent pin by another
  // replica wins, and a key different from it is refused like any changed key.
  private async pinHostKey(serverId: string, fingerprint: string): Promise<void> {
    // first, so a concurrent ensure() that reads the new column does not see a change and reconnect
    const known = this.known.get(serverId);
    if (known) known.fingerprint = fingerprint;
    if (!(await this.servers.pinHostKeyIfUnset(serverId, fingerprint))) {
      const pinned = await this.servers.hostKeyOf(serverId);
      if (pinned !== fingerprint) {
        if (known) known.fingerprint = pinned ?? null;
        throw new Error('another host key was pinned meanwhile');
      }
    }
    this.logger.info('host key pinned', { serverId, fingerprint });
  }
}

/** Socket mode: the controller's own machine. argv goes straight to execve, no shell. */
function execLocal(serverId: string, argv: Argv, opts: ExecOptions & { timeoutMs: number }): Promise<ExecResult> {
  toShellLine(argv); // rejects NUL like the ssh path
  const line = describeArgv(argv); // for messages only: env values and passwords masked
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      reject(new CommandTimeout(serverId, line, opts.timeoutMs));
    }, opts.timeoutMs);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.stdin.on('error', () => undefined);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (!timedOut) reject(new CommandFailed(serverId, line, e.code === 'ENOENT' ? 127 : 126, e.message));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) return;
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0 && opts.check !== false) reject(new CommandFailed(serverId, line, code, stderr, signal ?? undefined));
      else resolve({ stdout, stderr, code: code ?? -1 });
    });
    child.stdin.end(opts.stdin);
  });
}

async function writeLocalAtomic(filePath: string, content: string | Buffer, mode: number): Promise<void> {
  const dir = path.dirname(filePath);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(filePath)}.stevedore-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await fs.open(tmp, 'wx', mode);
    try {
      await handle.writeFile(content);
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, filePath);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
