// dockerode per server. In ssh mode every Docker API request is a direct-streamlocal channel to
// the remote docker socket on the pooled ssh2 connection: no new handshake and no remote process.
// dockerode's own protocol:'ssh' opens a new ssh connection per request (100-165 ms each).
import http from 'node:http';
import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { HostUnreachable } from './errors.js';
import { DEFAULT_REMOTE_DOCKER_SOCKET, type HostServer } from './server.js';
import type { SshPool } from './ssh-pool.js';

export class DockerClients {
  private readonly clients = new Map<string, Docker>();
  constructor(private readonly pool: SshPool) {}

  /** The cached client of a server registered with the pool. */
  for(serverId: string): Docker {
    let docker = this.clients.get(serverId);
    if (!docker) {
      docker = createDockerClient(this.pool, this.pool.server(serverId));
      this.clients.set(serverId, docker);
    }
    return docker;
  }

  /** Forget a server's client (after its settings changed). */
  forget(serverId: string): void {
    this.clients.delete(serverId);
  }
}

export function createDockerClient(pool: SshPool, server: HostServer): Docker {
  if (server.dockerMode === 'socket') {
    return new Docker({ socketPath: server.dockerSocketPath ?? DEFAULT_REMOTE_DOCKER_SOCKET });
  }
  // host/port are only what goes into the Host header; the agent decides where bytes really go
  // docker-modem honours `agent` (modem.js) but @types/dockerode does not declare it
  const options: Docker.DockerOptions & { agent: http.Agent } = { protocol: 'http', host: 'docker', port: 80, agent: sshStreamAgent(pool, server) };
  return new Docker(options);
}

function sshStreamAgent(pool: SshPool, server: HostServer): http.Agent {
  const socketPath = server.dockerSocketPath ?? DEFAULT_REMOTE_DOCKER_SOCKET;
  // keepAlive off: each request gets its own channel, which closes with the response and frees its slot
  const agent = new http.Agent({ keepAlive: false });
  type Callback = (err: Error | null, stream?: Duplex) => void;
  (agent as unknown as { createConnection: (opts: unknown, cb: Callback) => void }).createConnection = (_opts, cb) => {
    const open = (retry: boolean) => pool.acquireChannel(server.id).then(({ client, release }) => {
      const onStream = (err: Error | undefined, stream: Duplex) => {
        if (err) {
          release();
          return cb(new HostUnreachable(server.id, `cannot reach ${socketPath}: ${err.message}`, { cause: err }));
        }
        stream.once('close', release);
        // http expects a net.Socket; these are what it calls on one that a channel lacks
        const socket = stream as unknown as Duplex & Record<string, unknown>;
        socket.setTimeout ??= () => socket;
        socket.setNoDelay ??= () => socket;
        socket.setKeepAlive ??= () => socket;
        socket.ref ??= () => socket;
        socket.unref ??= () => socket;
        cb(null, socket);
      };
      try {
        client.openssh_forwardOutStreamLocal(socketPath, onStream as never);
      } catch (err) {
        // ssh2 throws "Not connected" when the pooled connection closed since it was handed out
        // (dropped for new settings, or dead): nothing was sent, so one retry on a fresh one is safe.
        // Without this the request would wait forever and its channel slot would never come back.
        release();
        if (!retry) return cb(new HostUnreachable(server.id, `cannot open a channel: ${(err as Error).message}`, { cause: err }));
        pool.discard(server.id, client);
        open(false);
      }
    }, (err: Error) => cb(err));
    open(true);
  };
  return agent;
}
