import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { HostAccess } from '../../hosts/host-access.js';
import { reasonOf } from '../context.js';
import { meter } from './digest-stream.js';

/**
 * The read side of putVerified: streams a stored object through `transforms` (gunzip) into
 * `argv` on the server, checking the bytes read against the recorded `sha256` on the way, and
 * resolves only when the command took them all and exited 0. A failure rejects with the reason:
 * the read, a checksum that does not match (the object was changed or damaged in the store), or
 * the command's own words (`what` names it: "the restore", "unpacking"). Database and volume
 * restores both read through here; what the command wrote to stdout is not kept.
 */
export async function streamVerifiedInto(hosts: Pick<HostAccess, 'stream'>, serverId: string, argv: readonly string[], source: Readable,
  transforms: Duplex[], sha256: string | null, what: string): Promise<void> {
  const exec = await hosts.stream(serverId, argv);
  exec.stdout.resume();
  const m = meter();
  try {
    await pipeline([source, m.stream, ...transforms, exec.stdin]);
  } catch (err) {
    exec.kill();
    await exec.exit;
    throw new Error(`reading the backup failed: ${(err as Error).message}`);
  }
  const exit = await exec.exit;
  if (sha256 && m.digest() !== sha256) {
    throw new Error(`the stored backup does not match its recorded SHA-256 (${sha256}); it was changed or damaged in the store`);
  }
  if (exit.code !== 0) throw new Error(`${what} ${exit.code === null ? 'was killed' : `exited ${exit.code}`}: ${reasonOf(exit.stderr, 'no error output')}`);
}
