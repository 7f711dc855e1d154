import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
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
async function serve(stateDir: string): Promise<{ child: ChildProcess; http: HttpClient; output: () => string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, STEVEDORE_STATE_DIR: stateDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
