// Builders of git argument arrays (STYLE.md: remote actions are data). Nothing here runs anything;
// run-git.ts executes them without a shell, so no URL, ref or path is ever read by one.
export type Argv = string[];

/** The cache of one source: a bare repository that only ever holds what was fetched. */
export const initBare = (dir: string): Argv => ['init', '--bare', '--quiet', dir];

/** The one ref, at depth 1, into FETCH_HEAD; no tags, no submodules, no hooks of the remote's. */
export const fetchRef = (url: string, ref: string | null): Argv =>
  ['fetch', '--depth', '1', '--no-tags', '--no-recurse-submodules', '--quiet', '--end-of-options', url, ref ?? 'HEAD'];

export const fetchedCommit = (): Argv => ['rev-parse', '--verify', '--end-of-options', 'FETCH_HEAD^{commit}'];

/** sha, author, committer date (ISO 8601) and subject, one per line. */
export const commitInfo = (commit: string): Argv => ['log', '-1', '--no-show-signature', '--format=%H%n%an <%ae>%n%cI%n%s', commit, '--'];

/** Every file under `path` at `commit` with its size, NUL-separated, paths from the repository's root. */
export const listTree = (commit: string, path: string): Argv =>
  ['ls-tree', '-r', '-z', '-l', '--full-tree', commit, '--', ...(path === '.' ? [] : [path.replace(/\/+$/, '') + '/'])];

/** Contents of the objects named on stdin, one per line. */
export const readBlobs = (): Argv => ['cat-file', '--batch'];
