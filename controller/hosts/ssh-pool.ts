// One ssh2 connection per server, reused by every command, SFTP session and Docker API call.
// A fresh connection costs 80-180 ms of handshake; a reused one runs `exec true` in a few ms.
import { Client, type HostVerifier } from 'ssh2';
import { HostKeyMismatch, HostUnreachable } from './errors.js';
import { fingerprintOf } from './host-key.js';
import { Semaphore } from './semaphore.js';
import type { HostServer } from './server.js';

export interface SshPoolOptions {
  connectTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  maxChannelsPerConnection?: number;
  /** A server without a pinned key presented this one (trust on first use): persist it. */
  onNewHostKey?: (serverId: string, fingerprint: string) => void | Promise<void>;
}

interface Entry {
  server: HostServer;
  privateKey: string;
  pinned: string | null;
  client?: Promise<Client>;
  channels: Semaphore;
  connects: number;
}

export class SshPool {
  private readonly entries = new Map<string, Entry>();
  private readonly opts: Required<Omit<SshPoolOptions, 'onNewHostKey'>> & Pick<SshPoolOptions, 'onNewHostKey'>;

  constructor(opts: SshPoolOptions = {}) {
    this.opts = { connectTimeoutMs: 5000, keepaliveIntervalMs: 5000, keepaliveCountMax: 3, maxChannelsPerConnection: 10, ...opts };
  }

  /** Add or replace a server; replacing drops its current connection so new settings apply. */
  register(server: HostServer, privateKey: string): void {
    if (this.entries.has(server.id)) this.drop(server.id);
    const channels = new Semaphore(this.opts.maxChannelsPerConnection);
    this.entries.set(server.id, { server, privateKey, pinned: server.hostKeyFingerprint ?? null, channels, connects: 0 });
  }

  server(serverId: string): HostServer {
    return this.entry(serverId).server;
  }

  /** How many times a connection was opened (tests and metrics: proves reuse / reconnects). */
  connectCount(serverId: string): number {
    return this.entry(serverId).connects;
  }

  /** The live connection, opening one if needed. Concurrent callers share one handshake. */
  connection(serverId: string): Promise<Client> {
    const entry = this.entry(serverId);
    if (!entry.client) {
      const attempt = this.connect(entry);
      entry.client = attempt;
      // a failed handshake must not be cached, or the server could never come back
      attempt.catch(() => { if (entry.client === attempt) entry.client = undefined; });
    }
    return entry.client;
  }

  /** Runs fn with one of the connection's bounded channel slots held. */
  async withChannel<T>(serverId: string, fn: (client: Client) => Promise<T>): Promise<T> {
    const release = await this.entry(serverId).channels.acquire();
    try {
      return await fn(await this.connection(serverId));
    } finally {
      release();
    }
  }

  /** For streams that outlive a call (Docker API sockets): the caller releases the slot. */
  async acquireChannel(serverId: string): Promise<{ client: Client; release: () => void }> {
    const release = await this.entry(serverId).channels.acquire();
    try {
      return { client: await this.connection(serverId), release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Close the connection (kept registered); the next use reconnects. */
  drop(serverId: string): void {
    const entry = this.entries.get(serverId);
    const client = entry?.client;
    if (!entry || !client) return;
    entry.client = undefined;
    client.then((c) => c.end(), () => undefined);
  }

  async close(): Promise<void> {
    for (const id of this.entries.keys()) this.drop(id);
    this.entries.clear();
  }

  private entry(serverId: string): Entry {
    const entry = this.entries.get(serverId);
    if (!entry) throw new Error(`server ${serverId} is not registered with the ssh pool`);
    return entry;
  }

  private connect(entry: Entry): Promise<Client> {
    const { server } = entry;
    const client = new Client();
    entry.connects++;
    let keyError: Error | null = null;
    const hostVerifier: HostVerifier = (key, verify) => {
      const actual = fingerprintOf(key);
      if (entry.pinned) {
        if (actual !== entry.pinned) keyError = new HostKeyMismatch(server.id, entry.pinned, actual);
        return verify(actual === entry.pinned);
      }
      Promise.resolve(this.opts.onNewHostKey?.(server.id, actual)).then(
        () => { entry.pinned = actual; verify(true); },
        (err: unknown) => { keyError = new HostUnreachable(server.id, `could not persist host key: ${String(err)}`); verify(false); },
      );
    };
    return new Promise<Client>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        client.destroy();
        reject(keyError ?? err);
      };
      // our own timer: ssh2's readyTimeout does not cover a TCP peer that accepts and stays silent in every phase
      const timer = setTimeout(() => fail(new HostUnreachable(server.id, `no ssh handshake within ${this.opts.connectTimeoutMs} ms`)), this.opts.connectTimeoutMs);
      client.on('ready', () => {
        settled = true;
        clearTimeout(timer);
        client.setNoDelay(true); // without it Nagle adds ~40 ms to every round trip
        resolve(client);
      });
      client.on('error', (err) => fail(new HostUnreachable(server.id, err.message, { cause: err })));
      client.on('close', () => {
        fail(new HostUnreachable(server.id, 'connection closed during handshake'));
        // a dead connection must not be handed out again: forget it so the next use reconnects
        void this.forget(entry, client);
      });
      client.connect({
        host: server.hostname, port: server.sshPort, username: server.sshUser, privateKey: entry.privateKey,
        hostVerifier, readyTimeout: this.opts.connectTimeoutMs + 1000,
        keepaliveInterval: this.opts.keepaliveIntervalMs, keepaliveCountMax: this.opts.keepaliveCountMax,
      });
    });
  }

  private async forget(entry: Entry, client: Client): Promise<void> {
    const current = entry.client;
    if (current && (await current.catch(() => null)) === client) {
      if (entry.client === current) entry.client = undefined;
    }
  }
}
