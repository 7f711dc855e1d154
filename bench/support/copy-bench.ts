// What the backup benches share (bench/backup.ts, bench/volume-backup.ts): the controller's RSS,
// calls of its API, a hand copy timed as a shell pipeline, and the figures' arithmetic.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
export const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

export async function request(port: number, method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, {
    method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A shell pipeline on the host (`what` names it in its failure), timed; its output file's size. */
export async function timedShell(script: string, out: string, what = 'hand dump'): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const p = spawn('bash', ['-o', 'pipefail', '-c', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${what} exited ${code}`))));
  });
  const ms = performance.now() - started;
  const bytes = fs.statSync(out).size;
  fs.rmSync(out);
  return { ms, bytes };
}

/** The controller's RSS sampled every 100 ms from now (after a second of settling): `stop` gives the figures. */
export async function sampleRss(pid: number) {
  await sleep(1000); // let start-up work settle before the idle figure
  const before = rssMiB(pid);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 100);
  console.log(`load average before the timed runs: ${load()}`);
  return {
    before,
    stop() {
      clearInterval(sampler);
      return { before, after: rssMiB(pid), peak: Math.max(before, ...samples), steady: median(samples.slice(Math.floor(samples.length / 2))) };
    },
  };
}

/** A first admin, an environment with the fleet's SSH key and one fleet server in it, through the API. */
export async function benchServer(port: number, s: { name: string; host: string; port: number; user: string; privateKeyPath: string }) {
  await request(port, 'POST', '/api/auth/register', undefined, { email: 'bench@example.test', password: 'bench-password' });
  const jwt = (await request(port, 'POST', '/api/auth/login', undefined, { email: 'bench@example.test', password: 'bench-password' })).token as string;
  const env = await request(port, 'POST', '/api/environments', jwt, { name: 'bench' });
  await request(port, 'PUT', `/api/environments/${env.id}/ssh-key`, jwt, { privateKey: fs.readFileSync(s.privateKeyPath, 'utf8') });
  const server = await request(port, 'POST', `/api/environments/${env.id}/servers`, jwt, { name: s.name, hostname: s.host, sshPort: s.port, sshUser: s.user });
  return { jwt, env, server };
}
