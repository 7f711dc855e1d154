// How the host layer sees a server. Plain data given by the caller; the host layer never reads
// the database, so it can be tested against the fleet alone.

export interface HostServer {
  id: string;
  hostname: string;
  sshPort: number;
  sshUser: string;
  /** 'ssh': Docker API tunnelled over the ssh connection. 'socket': a local unix socket. */
  dockerMode: 'ssh' | 'socket';
  /** Pinned host key, "SHA256:<base64>" as OpenSSH prints it; null/absent = trust on first use. */
  hostKeyFingerprint?: string | null;
  /** socket mode: local path of the docker socket; ssh mode: remote path (default /var/run/docker.sock). */
  dockerSocketPath?: string;
}

export const DEFAULT_REMOTE_DOCKER_SOCKET = '/var/run/docker.sock';
