// Let's Encrypt's own ACME test server for tests: `pebble` with `pebble-challtestsrv` as its DNS
// (Debian package `pebble`, installed here when missing, as test/fleet/install.sh does for the
// fleet). Validation is real: PEBBLE_VA_ALWAYS_VALID is never set; Pebble resolves a host through
// challtestsrv (which answers only the hosts a test adds, nothing by default) and fetches
// http://<host>:<httpPort>/.well-known/acme-challenge/<token>, httpPort being the controller's
// listening port. Authorizations are never reused (PEBBLE_AUTHZREUSE=0), so every order
// validates; nonces are never rejected at random (PEBBLE_WFE_NONCEREJECT=0), so a test's timing
// does not depend on a retry.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from './until.js';

export interface TestPebble {
  /** ACME directory URL (HTTPS, loopback). */
  directoryUrl: string;
  /** The file of the PEM Pebble's HTTPS listener presents: ACME_CA_CERT_FILE. */
  caCertFile: string;
  /** The root Pebble's issued chains lead to (management /roots/0). */
  root(): Promise<string>;
  /** Makes challtestsrv answer `host` with 127.0.0.1, or the addresses given (A records). */
  addHost(host: string, addresses?: string[]): Promise<void>;
  /** Makes challtestsrv answer `host` with nothing again. */
  clearHost(host: string): Promise<void>;
  stop(): Promise<void>;
}

const binaryPresent = (name: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Installs Debian's pebble when `pebble` or `pebble-challtestsrv` is missing (CI on a fresh machine). */
export function ensurePebbleInstalled(): void {
  if (binaryPresent('pebble') && binaryPresent('pebble-challtestsrv')) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'pebble'], { stdio: 'inherit', env });
}

/**
 * `count` distinct loopback ports free at the moment of asking (TCP; challtestsrv's DNS takes UDP
 * on the same number too), none of `taken`: all bound at once, so none is handed out twice.
 */
export async function freePorts(count: number, taken: number[] = []): Promise<number[]> {
  const servers: net.Server[] = [];
  const ports: number[] = [];
  while (ports.length < count) {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const { port } = server.address() as net.AddressInfo;
    if (!taken.includes(port)) ports.push(port);
  }
  await Promise.all(servers.map((server) => new Promise<void>((r) => server.close(() => r()))));
  return ports;
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

function started(name: string, args: string[], env: NodeJS.ProcessEnv, log: string[]): ChildProcess {
  const child = spawn(name, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    log.push(`${name}: ${chunk.toString()}`);
    if (process.env.TEST_LOGS) process.stderr.write(`${name}: ${chunk.toString()}`);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

/** Starts challtestsrv and Pebble; Pebble validates HTTP-01 on `httpPort` (the controller's port). */
export async function startPebble(o: { httpPort: number }): Promise<TestPebble> {
  ensurePebbleInstalled();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-pebble-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  // the certificate of Pebble's own HTTPS listener: self-signed for 127.0.0.1 and localhost
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=pebble test listener', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  const ca = fs.readFileSync(certFile, 'utf8');
  const [listen, management, dns, dnsManagement, tlsPort] = await freePorts(5, [o.httpPort]);
  fs.writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({
    pebble: {
      listenAddress: `127.0.0.1:${listen}`, managementListenAddress: `127.0.0.1:${management}`,
      certificate: certFile, privateKey: keyFile, httpPort: o.httpPort, tlsPort,
      ocspResponderURL: '', externalAccountBindingRequired: false,
    },
  }));
  const log: string[] = [];
  const challtestsrv = started('pebble-challtestsrv', [
    '-management', `127.0.0.1:${dnsManagement}`, '-dns01', `127.0.0.1:${dns}`,
    '-http01', '', '-https01', '', '-tlsalpn01', '', '-defaultIPv4', '', '-defaultIPv6', '',
  ], process.env, log);
  const pebble = started('pebble', ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dns}`], {
    ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_AUTHZREUSE: '0', PEBBLE_WFE_NONCEREJECT: '0',
  }, log);
  const directoryUrl = `https://127.0.0.1:${listen}/dir`;
  const dnsApi = `http://127.0.0.1:${dnsManagement}`;
  try {
    await until('Pebble to serve its directory', async () => (await get(directoryUrl, ca).catch(() => null))?.status === 200, { timeoutMs: 20_000, everyMs: 100 });
    await until('challtestsrv to answer', async () => (await fetch(`${dnsApi}/clear-a`, { method: 'POST', body: JSON.stringify({ host: 'nothing.test.' }) }).catch(() => null))?.ok === true,
      { timeoutMs: 20_000, everyMs: 100 });
  } catch (e) {
    pebble.kill();
    challtestsrv.kill();
    throw new Error(`${(e as Error).message}\n${log.join('')}`);
  }
  const stopped = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));
  return {
    directoryUrl,
    caCertFile: certFile,
    async root() {
      const res = await get(`https://127.0.0.1:${management}/roots/0`, ca);
      if (res.status !== 200) throw new Error(`Pebble's /roots/0 answered ${res.status}`);
      return res.body;
    },
    async addHost(host: string, addresses = ['127.0.0.1']) {
      const res = await fetch(`${dnsApi}/add-a`, { method: 'POST', body: JSON.stringify({ host: `${host}.`, addresses }) });
      if (!res.ok) throw new Error(`challtestsrv add-a ${host}: ${res.status}`);
    },
    async clearHost(host: string) {
      const res = await fetch(`${dnsApi}/clear-a`, { method: 'POST', body: JSON.stringify({ host: `${host}.` }) });
      if (!res.ok) throw new Error(`challtestsrv clear-a ${host}: ${res.status}`);
    },
    async stop() {
      pebble.kill();
      challtestsrv.kill();
      await Promise.all([stopped(pebble), stopped(challtestsrv)]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
