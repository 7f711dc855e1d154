// One ssh2 connection per server, reused by every command, SFTP session and Docker API call.
// A fresh connection costs 80-180 ms of handshake; a reused one runs `exec true` in a few ms.
import type { Client } from 'ssh2';
import { openConnection } from './ssh-connect.js';
import { channelSlots, type ChannelSlots } from './channel-slots.js';
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
  channels: ChannelSlots;
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
    const channels = channelSlots(this.opts.maxChannelsPerConnection);
    this.entries.set(server.id, { server, privateKey, pinned: server.hostKeyFingerprint ?? null, channels, connects: 0 });
  }

  server(serverId: string): HostServer {
    return this.entry(serverId).server;
  }

  /** How many times a connection was opened (tests and metrics: proves reuse / reconnects). */
  connectCount(serverId: string): number {
    return this.entry(serverId).connects;
  }

  /** Whether a connection is open (or opening) now, without opening one; null when the server is not registered. */
  status(serverId: string): { open: boolean; connects: number } | null {
    const entry = this.entries.get(serverId);
    return entry ? { open: !!entry.client, connects: entry.connects } : null;
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

  /** The next connection trusts the key it is shown (the open one, if any, stays). */
  forgetPin(serverId: string): void {
    this.entry(serverId).pinned = null;
  }

  /** Close the connection if it is still `client` (a caller found it dead); a newer one is kept. */
  discard(serverId: string, client: Client): void {
    const entry = this.entries.get(serverId);
    const current = entry?.client;
    if (!entry || !current) return;
    void current.then((c) => {
      if (c === client && entry.client === current) this.drop(serverId);
    }, () => undefined);
  }

  /** Close the connection (kept registered); the next use reconnects. */
  drop(serverId: string): void {
    const entry = this.entries.get(serverId);
    const client = entry?.client;
    if (!entry || !client) return;
    entry.client = undefined;
    client.then((c) => c.end(), () => undefined);
  }

  /** Servers with a connection open or opening (a gauge of /metrics). */
  connections(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.client) n++;
    return n;
  }

  /** Close the connection and forget the server (deleted, or its settings must be reloaded). */
  unregister(serverId: string): void {
    this.drop(serverId);
    this.entries.delete(serverId);
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
    entry.connects++;
    const client = openConnection(entry.server, entry.privateKey, {
      connectTimeoutMs: this.opts.connectTimeoutMs,
      keepaliveIntervalMs: this.opts.keepaliveIntervalMs,
      keepaliveCountMax: this.opts.keepaliveCountMax,
      pinned: () => entry.pinned,
      onNewHostKey: async (fingerprint) => {
        await this.opts.onNewHostKey?.(entry.server.id, fingerprint);
        entry.pinned = fingerprint;
      },
      // a dead connection must not be handed out again: forget it so the next use reconnects
      onClose: (closed) => void this.forget(entry, closed),
    });
    return client;
  }

  private async forget(entry: Entry, client: Client): Promise<void> {
    const current = entry.client;
    if (current && (await current.catch(() => null)) === client) {
      if (entry.client === current) entry.client = undefined;
    }
  }
}
