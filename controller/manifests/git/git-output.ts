// Parsers of git's machine output (pure): ls-tree -z and cat-file --batch.

export interface TreeEntry { mode: string; type: string; object: string; size: number; path: string }

/** `ls-tree -r -z -l` lines: `<mode> SP <type> SP <object> SP+ <size> TAB <path> NUL` (size `-` for submodules). */
export function parseTree(out: Buffer): TreeEntry[] {
  return out.toString('utf8').split('\0').filter(Boolean).map((line) => {
    const tab = line.indexOf('\t');
    const [mode, type, object, size] = line.slice(0, tab).split(/ +/);
    return { mode, type, object, size: Number(size) || 0, path: line.slice(tab + 1) };
  });
}

/** `cat-file --batch` output: `<oid> SP <type> SP <size> LF <contents> LF`, per object. */
export function parseBlobBatch(out: Buffer): Map<string, Buffer> {
  const blobs = new Map<string, Buffer>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(0x0a, at);
    if (nl < 0) break;
    const [oid, type, size] = out.subarray(at, nl).toString('utf8').split(' ');
    if (type === 'missing' || size === undefined) throw new Error(`git object ${oid} is missing from the cache`);
    const n = Number(size);
    blobs.set(oid, out.subarray(nl + 1, nl + 1 + n));
    at = nl + 1 + n + 1;
  }
  return blobs;
}
