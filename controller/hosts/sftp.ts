// Files onto servers. Writes go to a temporary name in the same directory and are renamed over
// the target, so a reader (or a crash mid-upload) never sees a half-written config file.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { HostError, HostUnreachable, RemoteFileFailed } from './errors.js';
import type { SshPool } from './ssh-pool.js';

const NO_SUCH_FILE = 2; // SFTP status code SSH_FX_NO_SUCH_FILE
/** Longest file name (one path component) and whole path most Linux file systems accept, in bytes. */
const NAME_MAX = 255;
const PATH_MAX = 4095;

/** SFTP status codes (draft-ietf-secsh-filexfer-02) in words. */
const SFTP_REASONS: Record<number, string> = {
  2: 'no such file or directory',
  3: 'permission denied',
  4: 'the server refused the operation',
  5: 'the server could not process the request',
  6: 'no connection',
  7: 'connection lost',
  8: 'operation not supported by the server',
};

/** Why a path cannot work on a Linux server, before asking it (its answers are vague). */
export function pathProblem(path: string): string | null {
  if (Buffer.byteLength(path) > PATH_MAX) return `the path is longer than ${PATH_MAX} bytes`;
  const long = path.split('/').find((part) => Buffer.byteLength(part) > NAME_MAX);
  if (long !== undefined) return `the path component "${long.slice(0, 40)}…" is ${Buffer.byteLength(long)} bytes long; file names may have at most ${NAME_MAX}`;
  if (path.includes('\0')) return 'the path contains a NUL character';
  return null;
}

/** An SFTP failure as a message naming what was done, where, and why. */
function fileError(serverId: string, operation: string, path: string, err: unknown): Error {
  if (err instanceof HostError) return err;
  const e = err as { code?: unknown; message?: string };
  const problem = pathProblem(path);
  const reason = typeof e?.code === 'number' && SFTP_REASONS[e.code]
    ? `${problem ?? SFTP_REASONS[e.code]} (SFTP: ${e.message ?? e.code})`
    : problem ?? e?.message ?? String(err);
  return new RemoteFileFailed(serverId, operation, path, reason, { cause: err });
}

/** The temporary name next to `path`, kept within NAME_MAX however long the final name is. */
function tempNameFor(path: string): string {
  const base = posix.basename(path);
  const suffix = `.stevedore-${randomBytes(6).toString('hex')}.tmp`;
  let head = `.${base}`;
  while (Buffer.byteLength(head + suffix) > NAME_MAX) head = head.slice(0, -1);
  return posix.join(posix.dirname(path), head + suffix);
}

export interface WriteFileOptions {
  /** Permission bits of the final file; default 0600 because uploads are often secrets. */
  mode?: number;
}

export async function writeFileAtomic(pool: SshPool, serverId: string, path: string, data: string | Buffer,
  opts: WriteFileOptions = {}): Promise<void> {
  const mode = opts.mode ?? 0o600;
  const dir = posix.dirname(path);
  const problem = pathProblem(path);
  if (problem) throw new RemoteFileFailed(serverId, 'write', path, problem);
  const tmp = tempNameFor(path);
  await withSftp(pool, serverId, async (sftp) => {
    await mkdirP(sftp, dir).catch((err) => { throw fileError(serverId, 'create directory', dir, err); });
    try {
      const handle = await call<Buffer>((cb) => sftp.open(tmp, 'w', { mode }, cb));
      await writeAll(sftp, handle, Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'));
      // open's mode is filtered by the server's umask; set the exact bits explicitly
      await call((cb) => sftp.fchmod(handle, mode, cb));
      // fsync@openssh.com: the data is on disk before the rename makes it visible
      await call((cb) => sftp.ext_openssh_fsync(handle, (err) => cb(err)));
      await call((cb) => sftp.close(handle, cb));
      // posix-rename@openssh.com replaces the target atomically; plain SFTP rename refuses to
      await call((cb) => sftp.ext_openssh_rename(tmp, path, cb));
    } catch (err) {
      await call((cb) => sftp.unlink(tmp, cb)).catch(() => undefined);
      throw fileError(serverId, 'write', path, err);
    }
  });
}

/** The file's bytes, or null when it does not exist. */
export function readFile(pool: SshPool, serverId: string, path: string): Promise<Buffer | null> {
  const problem = pathProblem(path);
  if (problem) return Promise.reject(new RemoteFileFailed(serverId, 'read', path, problem));
  return withSftp(pool, serverId, (sftp) => new Promise<Buffer | null>((resolve, reject) => {
    sftp.readFile(path, (err: (Error & { code?: number }) | undefined, data: Buffer) => {
      if (err && err.code === NO_SUCH_FILE) resolve(null);
      else if (err) reject(fileError(serverId, 'read', path, err));
      else resolve(data);
    });
  }));
}

function withSftp<T>(pool: SshPool, serverId: string, fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
  return pool.withChannel(serverId, async (client) => {
    const sftp = await call<SFTPWrapper>((cb) => client.sftp(cb)).catch((err: Error) => {
      throw new HostUnreachable(serverId, `cannot open sftp: ${err.message}`, { cause: err });
    });
    try {
      return await fn(sftp);
    } finally {
      sftp.end();
    }
  });
}

async function mkdirP(sftp: SFTPWrapper, dir: string): Promise<void> {
  const exists = await call((cb) => sftp.stat(dir, cb)).then(() => true, () => false);
  if (exists || dir === '/' || dir === '.') return;
  await mkdirP(sftp, posix.dirname(dir));
  // a concurrent writer may have created it meanwhile: only fail if it still is not there
  await call((cb) => sftp.mkdir(dir, cb)).catch(async (err: unknown) => {
    await call((cb) => sftp.stat(dir, cb)).catch(() => { throw err; });
  });
}

async function writeAll(sftp: SFTPWrapper, handle: Buffer, data: Buffer): Promise<void> {
  const chunk = 32 * 1024; // stays under the SFTP packet limit
  for (let offset = 0; offset < data.length; offset += chunk) {
    const part = data.subarray(offset, offset + chunk);
    await call((cb) => sftp.write(handle, part, 0, part.length, offset, cb));
  }
}

function call<T = unknown>(fn: (cb: (err?: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value as T))));
}
