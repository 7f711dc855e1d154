import { expect } from 'chai';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HttpClient } from '../support/http-client.js';
import { PASSWORD } from '../support/fixtures.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Starts `node bin/stevedore.js serve` with embedded PostgreSQL and waits until /health answers. */
async function serve(stateDir: string | null, cwd = process.cwd()): Promise<{ child: ChildProcess; http: HttpClient; output: () => string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  if (stateDir) env.STEVEDORE_STATE_DIR = stateDir;
  else delete env.STEVEDORE_STATE_DIR;
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c; });
  child.stderr!.on('data', (c: Buffer) => { out += c; });
  const http = new HttpClient(`http://127.0.0.1:${port}`);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serve exited early (${child.exitCode}):\n${out}`);
    const ok = await http.get('/health').then((r) => r.status === 200, () => false);
    if (ok) return { child, http, output: () => out };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`serve did not answer /health:\n${out}`);
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

describe('npm start with embedded PostgreSQL', () => {
  let stateDir: string;
  before(() => { stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-embedded-')); });
  after(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it('starts on a fresh state dir, keeps its data across a restart, and exits 0 on SIGTERM each time', async function () {
    this.timeout(180_000);
    const first = await serve(stateDir);
    const reg = await first.http.post('/api/auth/register', { email: 'keeper@example.test', password: PASSWORD });
    expect(reg.status, reg.text).to.equal(201);
    expect(await stop(first.child), first.output()).to.equal(0);
    expect(fs.existsSync(path.join(stateDir, 'postgres', 'PG_VERSION'))).to.equal(true);

    const second = await serve(stateDir);
    const login = await second.http.post('/api/auth/login', { email: 'keeper@example.test', password: PASSWORD });
    expect(login.status, login.text).to.equal(200);
    const again = await second.http.post('/api/auth/register', { email: 'late@example.test', password: PASSWORD });
    expect(again.status).to.equal(403);
    expect(await stop(second.child), second.output()).to.equal(0);
  });
});

// A root user on a fresh server clones into /root (0700): the OS user postgres, which the embedded
// PostgreSQL runs as, can enter neither the package's binaries nor the state dir there. The
// checkout is bind-mounted under a 0700 root-owned folder, so every path the process sees (its
// cwd, node_modules) is the root-only one, as in a real clone; the state dir is in that folder too
// (beside the checkout rather than its ./.stevedore, which a developer's own `npm start` may hold).
describe('npm start as root from a directory only root may enter', () => {
  let root: string;
  let checkout: string;
  let mounted = false;
  before(function () {
    if (process.getuid?.() !== 0) this.skip();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-rootonly-'));
    fs.chmodSync(root, 0o700);
    checkout = path.join(root, 'stevedore');
    fs.mkdirSync(checkout);
    execFileSync('mount', ['--bind', process.cwd(), checkout]);
    mounted = true;
  });
  after(() => {
    if (!root) return;
    const state = path.join(root, 'state');
    const link = path.join(state, 'postgres');
    const data = fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(link) : null;
    if (data) fs.rmSync(data, { recursive: true, force: true });
    if (mounted) execFileSync('umount', [checkout]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('starts, its data outside the checkout and linked from it, and answers /health', async function () {
    this.timeout(180_000);
    // what the user postgres meets: the binaries in the checkout are out of its reach
    const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const reach = spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', path.join(checkout, 'node_modules')], { uid: postgresUid, stdio: 'ignore' });
    expect(reach.status, 'the user postgres cannot enter the checkout').to.not.equal(0);

    const started = await serve(path.join(root, 'state'), checkout);
    const health = await started.http.get('/health');
    expect(health.status, started.output()).to.equal(200);
    expect(health.body).to.include({ status: 'ok', database: 'ok' });
    const link = path.join(root, 'state', 'postgres');
    expect(fs.lstatSync(link).isSymbolicLink(), 'the state dir links to the data').to.equal(true);
    expect(fs.readlinkSync(link).startsWith('/var/lib/stevedore/embedded-postgres/')).to.equal(true);
    expect(started.output()).to.include('the OS user postgres cannot enter');
    const reg = await started.http.post('/api/auth/register', { email: 'rooted@example.test', password: PASSWORD });
    expect(reg.status, reg.text).to.equal(201);
    expect(await stop(started.child), started.output()).to.equal(0);

    // and again, on the same data
    const again = await serve(path.join(root, 'state'), checkout);
    const login = await again.http.post('/api/auth/login', { email: 'rooted@example.test', password: PASSWORD });
    expect(login.status, login.text).to.equal(200);
    expect(await stop(again.child), again.output()).to.equal(0);
  });
});
