import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * The commit checked out in the git work tree containing dir, read from .git files directly
 * (no git binary needed on the controller): HEAD, then the loose ref, then packed-refs.
 * Linked work trees (.git is a file naming the real git dir) are followed. Returns null when
 * dir is not in a git checkout.
 */
export async function gitHead(dir: string): Promise<string | null> {
  for (let d = dir; ; d = dirname(d)) {
    const gitDir = await gitDirOf(join(d, '.git'));
    if (gitDir) return resolveHead(gitDir);
    if (dirname(d) === d) return null;
  }
}

async function gitDirOf(dotGit: string): Promise<string | null> {
  const st = await stat(dotGit).catch(() => null);
  if (!st) return null;
  if (st.isDirectory()) return dotGit;
  const target = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'))?.[1]?.trim();
  if (!target) return null;
  return isAbsolute(target) ? target : join(dirname(dotGit), target);
}

async function resolveHead(gitDir: string): Promise<string | null> {
  const head = (await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim();
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return /^[0-9a-f]{40,64}$/.test(head) ? head : null;
  // A linked work tree keeps its HEAD apart but shares refs with the main git dir.
  const common = (await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
  for (const dir of common ? [gitDir, isAbsolute(common) ? common : join(gitDir, common)] : [gitDir]) {
    const loose = (await readFile(join(dir, ref), 'utf8').catch(() => '')).trim();
    if (loose) return loose;
    const packed = await readFile(join(dir, 'packed-refs'), 'utf8').catch(() => '');
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    if (line) return line.split(' ')[0];
  }
  return null;
}
