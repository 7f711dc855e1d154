// One wrk run (Debian package `wrk`) against a URL: requests/s, latency percentiles and errors,
// read from wrk's own report (--latency prints the 50/75/90/99 % distribution).
import { execFile } from 'node:child_process';

export interface WrkResult { rps: number; p50Ms: number; p99Ms: number; requests: number; errors: number }

const toMs = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[unit];

export function parseWrk(out: string): WrkResult {
  const pct = (p: string) => {
    const m = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`no ${p}% line in wrk's report:\n${out}`);
    return toMs(m[1], m[2]);
  };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const total = /(\d+) requests in/.exec(out);
  if (!rps || !total) throw new Error(`unexpected wrk report:\n${out}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const errors = (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0) + (non2xx ? Number(non2xx[1]) : 0);
  return { rps: Number(rps[1]), p50Ms: pct('50'), p99Ms: pct('99'), requests: Number(total[1]), errors };
}

export function wrk(url: string, o: { connections: number; seconds: number; threads?: number; headers?: Record<string, string> }): Promise<WrkResult> {
  const args = ['-t', String(o.threads ?? 2), '-c', String(o.connections), '-d', `${o.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { timeout: (o.seconds + 30) * 1000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`wrk failed (is the Debian package wrk installed?): ${err.message}\n${stderr}`));
      else {
        try { resolve(parseWrk(stdout)); } catch (e) { reject(e); }
      }
    });
  });
}
