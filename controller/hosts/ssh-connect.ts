// Opens one ssh2 connection with host key pinning and a hard handshake deadline, translating every
// way it can fail into a typed host error. The pool decides when to call this.
import { Client, type HostVerifier } from 'ssh2';
import { HostKeyMismatch, HostUnreachable, SshConfigInvalid } from './errors.js';
import { fingerprintOf } from './host-key.js';
import type { HostServer } from './server.js';

export interface ConnectOptions {
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  /** The pinned fingerprint right now (null: trust on first use). */
  pinned: () => string | null;
  /** Persist a first-seen key; a rejection refuses the connection. */
  onNewHostKey: (fingerprint: string) => Promise<void>;
  /** The connection closed, at any time after it was opened. */
  onClose: (client: Client) => void;
}

export function openConnection(server: HostServer, privateKey: string, opts: ConnectOptions): Promise<Client> {
  const client = new Client();
  // ssh2 only reports "Host denied (verification failed)"; keep the typed reason for the rejection
  let keyError: Error | null = null;
  const hostVerifier: HostVerifier = (key, verify) => {
    const actual = fingerprintOf(key);
    const pinned = opts.pinned();
    if (pinned) {
      if (actual !== pinned) keyError = new HostKeyMismatch(server.id, pinned, actual);
      return verify(actual === pinned);
    }
    opts.onNewHostKey(actual).then(() => verify(true), (err: unknown) => {
      keyError = new HostUnreachable(server.id, `could not persist the host key: ${String(err)}`);
      verify(false);
    });
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
    // our own deadline: it bounds a peer that accepts TCP and then stays silent, whatever the phase
    const timer = setTimeout(() => fail(new HostUnreachable(server.id, `no ssh handshake within ${opts.connectTimeoutMs} ms`)), opts.connectTimeoutMs);
    client.on('ready', () => {
      settled = true;
      clearTimeout(timer);
      client.setNoDelay(true); // without it Nagle adds ~40 ms to every round trip
      resolve(client);
    });
    client.on('error', (err) => fail(new HostUnreachable(server.id, err.message, { cause: err })));
    client.on('close', () => {
      fail(new HostUnreachable(server.id, 'connection closed during handshake'));
      opts.onClose(client);
    });
    try {
      client.connect({
        host: server.hostname, port: server.sshPort, username: server.sshUser, privateKey,
        hostVerifier, readyTimeout: opts.connectTimeoutMs + 1000,
        keepaliveInterval: opts.keepaliveIntervalMs, keepaliveCountMax: opts.keepaliveCountMax,
      });
    } catch (err) {
      // ssh2 throws synchronously on settings it cannot use, e.g. an unparsable private key
      fail(new SshConfigInvalid(server.id, (err as Error).message, { cause: err }));
    }
  });
}
