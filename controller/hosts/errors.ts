// Typed host errors. ssh-driver.ts and ssh-pool.ts are the only places that translate raw ssh2 /
// socket failures into these; callers (the work queue) read `retryable` instead of matching strings.

/**
 * Server names by id, so that messages name the server an operator knows ("web-1"), not only its
 * id. Filled by the host access layer whenever it reads a server row.
 */
const names = new Map<string, string>();

export function rememberServerName(serverId: string, name: string): void {
  names.set(serverId, name);
}

/** `"web-1"` when the name is known, else the id. */
export function serverLabel(serverId: string): string {
  const name = names.get(serverId);
  return name ? `"${name}"` : serverId;
}

export type HostErrorCode = 'HOST_UNREACHABLE' | 'COMMAND_TIMEOUT' | 'COMMAND_FAILED' | 'HOST_KEY_MISMATCH' | 'SSH_CONFIG_INVALID';

export abstract class HostError extends Error {
  abstract readonly code: HostErrorCode;
  /** true: try again later with backoff. false: retrying cannot help until someone changes something. */
  abstract readonly retryable: boolean;
  constructor(readonly serverId: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Could not connect, or the connection dropped: network, sshd down, black hole. */
export class HostUnreachable extends HostError {
  readonly code = 'HOST_UNREACHABLE';
  readonly retryable = true;
  constructor(serverId: string, reason: string, options?: ErrorOptions) {
    super(serverId, `host ${serverLabel(serverId)} unreachable: ${reason}`, options);
  }
}

/** The command did not finish in time; its channel was closed. */
export class CommandTimeout extends HostError {
  readonly code = 'COMMAND_TIMEOUT';
  readonly retryable = true;
  constructor(serverId: string, readonly command: string, readonly timeoutMs: number) {
    super(serverId, `command on ${serverLabel(serverId)} timed out after ${timeoutMs} ms: ${truncate(command, 200)}`);
  }
}

/** The command ran and exited non-zero. Terminal: the same command will fail the same way. */
export class CommandFailed extends HostError {
  readonly code = 'COMMAND_FAILED';
  readonly retryable = false;
  readonly stderrTail: string;
  constructor(serverId: string, readonly command: string, readonly exitCode: number | null, stderr: string, readonly signal?: string) {
    const tail = stderr.trimEnd().slice(-2000);
    super(serverId, `command on ${serverLabel(serverId)} exited ${exitCode ?? `by signal ${signal}`}: ${truncate(command, 200)}${tail ? `\n${tail}` : ''}`);
    this.stderrTail = tail;
  }
}

/** The server presented a different host key than the pinned one: possible MITM or a rebuilt host. */
export class HostKeyMismatch extends HostError {
  readonly code = 'HOST_KEY_MISMATCH';
  readonly retryable = false;
  constructor(serverId: string, readonly expected: string, readonly actual: string) {
    super(serverId, `host key of ${serverLabel(serverId)} changed: expected ${expected}, got ${actual}`);
  }
}

/** The connection settings themselves are unusable (e.g. a private key ssh2 cannot parse). */
export class SshConfigInvalid extends HostError {
  readonly code = 'SSH_CONFIG_INVALID';
  readonly retryable = false;
  constructor(serverId: string, reason: string, options?: ErrorOptions) {
    super(serverId, `ssh settings of ${serverLabel(serverId)} are invalid: ${reason}`, options);
  }
}

/** A file operation on the server failed (SFTP): names the operation, the path and the reason. */
export class RemoteFileFailed extends HostError {
  readonly code = 'COMMAND_FAILED';
  readonly retryable = false;
  constructor(serverId: string, readonly operation: string, readonly path: string, readonly reason: string, options?: ErrorOptions) {
    super(serverId, `${operation} ${truncate(path, 300)} on ${serverLabel(serverId)} failed: ${reason}`, options);
  }
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
