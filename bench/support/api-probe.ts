// Latency of API reads at a steady rate, from a process of its own (the bench's process is busy
// being the simulated servers: its event loop would add its own delays to what it times).
// Open loop: a request is sent every 1000/rate ms whether or not the earlier ones have answered,
// and each latency runs from the moment it was due, so a stalled service shows as the wait it
// causes instead of as fewer samples. The parent asks for the latencies of a window of wall-clock
// time (Date.now(): both processes read the same clock).
//   const probe = await startApiProbe({ urls, token, ratePerSec: 50 });
//   const idle = await probe.window(from, to);   // { count, p50Ms, p99Ms, maxMs, errors }
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LatencySummary { count: number; p50Ms: number; p99Ms: number; maxMs: number; errors: number }

/** The q-quantile (0..1) of the values by the nearest-rank method; NaN when there are none. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface Sample { dueAt: number; ms: number; ok: boolean }

/** The samples due within [from, to) summed up; a failed request counts as an error, not a latency. */
export function summarize(samples: Sample[], from: number, to: number): LatencySummary {
  const inWindow = samples.filter((s) => s.dueAt >= from && s.dueAt < to);
  const ms = inWindow.filter((s) => s.ok).map((s) => s.ms);
  return { count: inWindow.length, p50Ms: quantile(ms, 0.5), p99Ms: quantile(ms, 0.99), maxMs: ms.length ? Math.max(...ms) : NaN, errors: inWindow.length - ms.length };
}

export interface ApiProbe {
  window(from: number, to: number): Promise<LatencySummary>;
  stop(): Promise<void>;
}

type ToChild = { type: 'start'; urls: string[]; token: string; ratePerSec: number } | { type: 'window'; id: number; from: number; to: number };

export async function startApiProbe(o: { urls: string[]; token: string; ratePerSec: number }): Promise<ApiProbe> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, (s: LatencySummary) => void>();
  child.on('message', (m: { id: number; summary: LatencySummary }) => {
    waiting.get(m.id)?.(m.summary);
    waiting.delete(m.id);
  });
  child.send({ type: 'start', ...o } satisfies ToChild);
  let next = 0;
  return {
    window: (from, to) => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.send({ type: 'window', id, from, to } satisfies ToChild);
    }),
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

function runChild(): void {
  const samples: Sample[] = [];
  process.on('message', (m: ToChild) => {
    if (m.type === 'window') {
      process.send!({ id: m.id, summary: summarize(samples, m.from, m.to) });
      return;
    }
    const every = 1000 / m.ratePerSec;
    const headers = { authorization: `Bearer ${m.token}` };
    let n = 0;
    const start = Date.now();
    const tick = () => {
      // catch up on what was due while this process was not scheduled: each keeps its due time
      while (start + n * every <= Date.now()) {
        const dueAt = start + n * every;
        const url = m.urls[n % m.urls.length]!;
        n++;
        void fetch(url, { headers }).then(async (res) => {
          await res.arrayBuffer();
          samples.push({ dueAt, ms: Date.now() - dueAt, ok: res.status === 200 });
        }, () => samples.push({ dueAt, ms: Date.now() - dueAt, ok: false }));
      }
      setTimeout(tick, Math.max(0, start + n * every - Date.now()));
    };
    tick();
  });
}

if (process.argv.includes('--child')) runChild();
