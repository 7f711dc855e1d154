// The controller as a child process (`stevedore serve`) and an SSE client that reconnects with
// Last-Event-ID like a browser: what the chaos tests and the chaos harness (bench/chaos.ts) drive.
// A module of its own, light to load: it does not import the in-process service.
import { spawn, type ChildProcess } from 'node:child_process';
import { listeningUrl } from '../../support/log-lines.js';
import { sleep, until } from '../../support/until.js';
import { sseFrames } from '../../support/sse-stream.js';

/** Waits across a fault: a probe that throws (a controller restarting refuses connections) is polled again. */
export const THROUGH_FAULTS = { timeoutMs: 60_000, everyMs: 100, retryErrors: true } as const;

/** `stevedore serve` as a child process; its log is kept to check for unhandled rejections. */
export class Controller {
  child: ChildProcess | null = null;
  url = '';
  log = '';
  exits: Array<number | null> = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { env: { ...process.env, ...this.env }, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    const from = this.log.length;
    child.stderr!.on('data', (d: Buffer) => {
      this.log += d.toString();
      if (process.env.TEST_LOGS) process.stderr.write(d);
    });
    child.once('exit', (code) => {
      this.exits.push(code);
      if (this.child === child) this.child = null;
    });
    this.url = await until('the controller to listen', async () => {
      if (!this.child) throw new Error(`the controller exited:\n${this.log.slice(from)}`);
      return listeningUrl(this.log.slice(from));
    }, { ...THROUGH_FAULTS, timeoutMs: 240_000, everyMs: 50 });
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }

  /** Log lines of unhandled rejections (the process must never have one). */
  unhandled(): string[] {
    return this.log.split('\n').filter((l) => l.includes('"unhandled rejection"'));
  }
}

/** An /api/events client that reconnects with Last-Event-ID whenever its stream ends. */
export class SseClient {
  readonly ids: number[] = [];
  private lastId = 0;
  private stopped = false;
  private abort = new AbortController();
  connects = 0;

  constructor(private readonly url: () => string, private readonly token: string) {}

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
        if (this.lastId) headers['last-event-id'] = String(this.lastId);
        const res = await fetch(`${this.url()}/api/events`, { headers, signal: this.abort.signal });
        if (res.status !== 200 || !res.body) throw new Error(`events answered ${res.status}`);
        this.connects++;
        for await (const { id } of sseFrames(res.body as unknown as AsyncIterable<Uint8Array>)) {
          if (id && /^\d+$/.test(id)) {
            this.ids.push(Number(id));
            this.lastId = Math.max(this.lastId, Number(id));
          }
        }
      } catch {
        /* the controller or its database is away: try again */
      }
      if (!this.stopped) await sleep(250);
    }
  }
}

export const STREAM_TYPES = ['plan.updated', 'plan.step', 'deployment.updated', 'health.changed', 'drift.changed'];
