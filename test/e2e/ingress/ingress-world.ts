// What the ingress e2e tests share: the fleet's Caddy image (test/fleet/caddy-image.sh, built on
// first use), requests to a server's proxy as a client that resolved the host to that server
// (curl --resolve), and a client asking every 20 ms while something happens.
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { fleetImage } from '../databases/database-world.js';

const run = promisify(execFile);

export const HOST = 'app.stevedore.test';
export const caddyImage = () => fleetImage('FLEET_CADDY_IMAGE', 'caddy-image.sh');

/** curl from this machine, the host resolved to the server's address; the response head and body. */
export async function curl(ip: string, url: string, extra: string[] = []): Promise<{ code: number; location: string; body: string }> {
  const u = new URL(url);
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  const { stdout } = await run('curl', ['-s', '--max-time', '5', '--resolve', `${u.hostname}:${port}:${ip}`, '-o', '-', '-w', '\n%{http_code} %{redirect_url}', ...extra, url])
    .catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '\n000 ' }));
  const at = stdout.lastIndexOf('\n');
  const [code, location] = stdout.slice(at + 1).split(' ');
  return { code: Number(code), location: location ?? '', body: stdout.slice(0, at) };
}

/** One GET of http://HOST/ through the server's proxy: the body, or what went wrong. */
function get(ip: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request({ host: ip, port: 80, path: '/', headers: { Host: HOST }, agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve(res.statusCode === 200 ? body : `HTTP ${res.statusCode}: ${body.slice(0, 100)}`));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve(`FAIL ${e.message}`));
    req.end();
  });
}

/** A request every 20 ms to each server's proxy until stop(); each answer kept, with when. */
export function probe(ips: string[]) {
  let running = true;
  const answers: Array<{ ip: string; at: number; answer: string }> = [];
  const loops = ips.map(async (ip) => {
    while (running) {
      answers.push({ ip, at: Date.now(), answer: await get(ip) });
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}
