// Real Git repositories for the Git source tests: a bare repository (what a code host serves) and
// a work tree that commits and pushes to it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TEST_GIT_ROOT } from './git-file-roots.js';

export interface TestRepo {
  /** The bare repository's path. */
  bare: string;
  url: string;
  /** Writes (or, for null, removes) files in the work tree, commits and pushes; the new commit's sha. */
  commit(files: Record<string, string | null>, message?: string, branch?: string): string;
  git(...args: string[]): string;
  remove(): void;
}

const ENV = { PATH: process.env.PATH!, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C' };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Ada Tester', '-c', 'user.email=ada@example.test', '-c', 'init.defaultBranch=main', ...args],
    { cwd, env: { ...ENV, HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
}

export function createRepo(name = 'manifests'): TestRepo {
  mkdirSync(TEST_GIT_ROOT, { recursive: true });
  const root = mkdtempSync(join(TEST_GIT_ROOT, 'git-source-'));
  const bare = join(root, `${name}.git`);
  const work = join(root, 'work');
  mkdirSync(work);
  git(root, 'init', '-q', '--bare', bare);
  git(work, 'init', '-q');
  git(work, 'remote', 'add', 'origin', bare);
  return {
    bare,
    url: `file://${bare}`,
    commit(files, message = 'change', branch = 'main') {
      if (git(work, 'branch', '--show-current') !== branch) git(work, 'checkout', '-q', '-B', branch);
      for (const [path, content] of Object.entries(files)) {
        const full = join(work, path);
        if (content === null) rmSync(full, { force: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, content);
        }
      }
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '--allow-empty', '-m', message);
      git(work, 'push', '-q', '-f', 'origin', `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
    git: (...args) => git(work, ...args),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
