// Counts the entries of a tar stream on its way through, without holding it: a backup of a
// volume that holds nothing (a tar of only `./`) is not a backup (docs/volumes.md, "Honest status").
import { Transform } from 'node:stream';

const BLOCK = 512;
/** Header types that describe the next entry (long names, pax attributes), not an entry of their own. */
const META_TYPES = new Set(['L', 'K', 'x', 'g']);

/** The size field of a header: octal text, or base-256 when its first byte has the high bit set. */
function sizeOf(header: Buffer): number {
  const field = header.subarray(124, 136);
  if (field[0] & 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i];
    return n;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text ? parseInt(text, 8) : 0;
}

/** A pass-through that counts tar entries other than the root `./` (files, directories, links). */
export function tarEntries() {
  let entries = 0;
  let skip = 0; // content bytes (rounded up to blocks) of the current entry still to pass
  let pending = Buffer.alloc(0); // a header cut between chunks
  let ended = false;
  const inspect = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length && !ended) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - at);
        skip -= n;
        at += n;
        continue;
      }
      const need = BLOCK - pending.length;
      const part = chunk.subarray(at, at + need);
      at += part.length;
      pending = pending.length ? Buffer.concat([pending, part]) : Buffer.from(part);
      if (pending.length < BLOCK) return;
      const header = pending;
      pending = Buffer.alloc(0);
      if (header.every((b) => b === 0)) {
        ended = true; // the end-of-archive blocks
        return;
      }
      const type = String.fromCharCode(header[156] || 0x30);
      const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
      const size = sizeOf(header);
      skip = Math.ceil(size / BLOCK) * BLOCK;
      if (!META_TYPES.has(type) && name !== './' && name !== '.') entries++;
    }
  };
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      inspect(chunk);
      done(null, chunk);
    },
  });
  return { stream, entries: () => entries };
}
