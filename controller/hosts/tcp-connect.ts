// A TCP connection opened from the server itself: a direct-tcpip channel of the pooled ssh
// connection (what `ssh -L` uses), so a port bound to the server's 127.0.0.1 is reachable and no
// tool has to exist on the server. Socket-mode servers are this machine: a plain connect.
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { SshPool } from './ssh-pool.js';

export interface TcpConnection {
  stream: Duplex;
  close: () => void;
}

export async function sshTcpConnect(pool: SshPool, serverId: string, host: string, port: number): Promise<TcpConnection> {
  const { client, release } = await pool.acquireChannel(serverId);
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => {
      release();
      reject(new Error(`connect to ${host}:${port} from the server failed: ${err.message}`));
    };
    try {
      client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => {
        if (err) return failed(err);
        let released = false;
        const done = () => { if (!released) { released = true; release(); } };
        stream.once('close', done);
        resolve({ stream, close: () => { stream.destroy(); done(); } });
      });
    } catch (err) {
      // "Not connected": the pooled connection closed since it was handed out; the slot comes back
      pool.discard(serverId, client);
      failed(err as Error);
    }
  });
}

export function localTcpConnect(host: string, port: number): Promise<TcpConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => resolve({ stream: socket, close: () => socket.destroy() }));
    socket.once('error', (err) => reject(new Error(`connect to ${host}:${port} failed: ${err.message}`)));
  });
}
