import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quoteArg } from '../../hosts/shell-quote.js';
import type { ManifestFile } from '../types.js';
import { commitInfo, fetchedCommit, fetchRef, initBare, listTree, readBlobs } from './git-commands.js';
import { GitError, runGit } from './run-git.js';
import type { GitRemote } from './git-url.js';
import { parseBlobBatch, parseTree } from './git-output.js';

export interface FetchRequest {
  /** The cache of this source (a bare repository, made on first use). */
  cacheDir: string;
  remote: GitRemote;
  ref: string | null;
  path: string;
  sshPrivateKey: string | null;
  username: string | null;
  token: string | null;
  /** The pinned host key line(s); null: pin what the first connection shows. */
  knownHosts: string | null;
}

export interface FetchedCommit {
  commit: string;
  author: string;
  committedAt: string;
  message: string;
  /** The manifests under `path`, paths relative to it; never written to disk. */
  files: ManifestFile[];
  /** Set when this fetch pinned the remote's host key. */
  pinnedKnownHosts: string | null;
}

const IS_MANIFEST = /\.ya?ml$/i;
/** As POST /api/manifests/apply takes them. */
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * Fetches the ref (depth 1, only that ref) into the source's cache and reads the manifests of
 * `path` at the fetched commit from git's objects: nothing is checked out, so an encrypted file's
 * plain text never exists on disk. Credentials reach git through its environment and a credential
 * helper (a token) or GIT_SSH_COMMAND with a key file removed at the end (a deploy key).
 */
export async function fetchSource(req: FetchRequest): Promise<FetchedCommit> {
  if (!existsSync(join(req.cacheDir, 'HEAD'))) {
    await mkdir(req.cacheDir, { recursive: true, mode: 0o700 });
    await runGit(initBare(req.cacheDir));
  }
  const scratch = join(req.cacheDir, `stevedore-${randomBytes(6).toString('hex')}`);
  await mkdir(scratch, { mode: 0o700 });
  try {
    const { env, config, knownHostsFile } = await credentialsOf(req, scratch);
    const run = (argv: string[], input?: string) => runGit(argv, { cwd: req.cacheDir, env, config, input, redact: [req.token ?? '', req.username ?? ''] });
    try {
      await run(fetchRef(req.remote.url, req.ref));
    } catch (e) {
      throw explainFetchError(e, req);
    }
    const commit = (await run(fetchedCommit())).toString('utf8').trim();
    const [sha, author, committedAt, ...subject] = (await run(commitInfo(commit))).toString('utf8').split('\n');
    const entries = parseTree(await run(listTree(commit, req.path)))
      .filter((e) => e.type === 'blob' && IS_MANIFEST.test(e.path))
      .map((e) => ({ ...e, rel: relativeTo(req.path, e.path) }))
      .filter((e) => !e.rel.split('/').some((p) => p.startsWith('.') || p === 'node_modules'))
      .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    if (entries.length > MAX_FILES) throw new GitError(`${req.path} holds ${entries.length} manifest files at ${commit.slice(0, 12)}; at most ${MAX_FILES} are read`, '');
    const big = entries.find((e) => e.size > MAX_FILE_BYTES);
    if (big) throw new GitError(`${big.rel} is ${big.size} bytes at ${commit.slice(0, 12)}; a manifest file may hold at most ${MAX_FILE_BYTES}`, '');
    const blobs = entries.length ? parseBlobBatch(await run(readBlobs(), entries.map((e) => e.object).join('\n') + '\n')) : new Map<string, Buffer>();
    const files = entries.map((e) => ({ path: e.rel, content: blobs.get(e.object)!.toString('utf8') }));
    const pinned = !req.knownHosts && knownHostsFile ? (await readFile(knownHostsFile, 'utf8').catch(() => '')).trim() || null : null;
    return { commit: sha || commit, author: author ?? '', committedAt: committedAt ?? '', message: subject.join('\n').trim().slice(0, 1000), files, pinnedKnownHosts: pinned };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const relativeTo = (base: string, path: string) => (base === '.' ? path : path.slice(base.replace(/\/+$/, '').length + 1));

async function credentialsOf(req: FetchRequest, scratch: string): Promise<{ env: Record<string, string>; config: string[]; knownHostsFile: string | null }> {
  const env: Record<string, string> = {};
  const config: string[] = ['credential.helper=', 'core.hooksPath=/dev/null', 'protocol.ext.allow=never', 'fetch.fsckObjects=false'];
  if (req.token) {
    // the token comes from the environment of this one git process: never argv, never a file
    env.STEVEDORE_GIT_USERNAME = req.username || 'x-access-token';
    env.STEVEDORE_GIT_TOKEN = req.token;
    config.push('credential.helper=!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" "$STEVEDORE_GIT_USERNAME" "$STEVEDORE_GIT_TOKEN"; }; f');
  }
  if (req.remote.transport !== 'ssh') return { env, config, knownHostsFile: null };
  const knownHostsFile = join(scratch, 'known_hosts');
  await writeFile(knownHostsFile, req.knownHosts ? req.knownHosts + '\n' : '', { mode: 0o600 });
  const ssh = ['ssh', '-F', '/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none',
    '-o', `UserKnownHostsFile=${knownHostsFile}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'HashKnownHosts=no',
    // pinned like a server's: the first connection's key is kept, any other refused
    '-o', `StrictHostKeyChecking=${req.knownHosts ? 'yes' : 'accept-new'}`, '-o', 'ConnectTimeout=20'];
  if (req.sshPrivateKey) {
    const keyFile = join(scratch, 'id');
    await writeFile(keyFile, req.sshPrivateKey.replace(/\r\n/g, '\n').replace(/\n?$/, '\n'), { mode: 0o600 });
    ssh.push('-i', keyFile);
  }
  env.GIT_SSH_COMMAND = ssh.map(quoteArg).join(' ');
  env.GIT_SSH_VARIANT = 'ssh';
  return { env, config, knownHostsFile };
}

function explainFetchError(e: unknown, req: FetchRequest): Error {
  if (!(e instanceof GitError)) return e as Error;
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/i.test(e.stderr) && req.knownHosts) {
    return new GitError(`the host key of ${req.remote.host} is not the one pinned at the first fetch: refused `
      + '(if the server really changed its key, PUT the source again with the new URL or delete and re-create it to pin the new key)', e.stderr);
  }
  if (/couldn't find remote ref|not our ref|unknown revision/i.test(e.stderr)) {
    return new GitError(`the ref ${req.ref ?? 'HEAD'} does not exist in the repository`, e.stderr);
  }
  return e;
}
