// What every chaos test needs: the controller as a child process (`stevedore serve`, small
// cadences), an SSE client that reconnects with Last-Event-ID like a browser, an outgoing webhook
// receiver, and the checks that must hold after every fault.
import { listeningUrl } from '../../support/log-lines.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { HttpClient } from '../../support/http-client.js';
import { Receiver } from '../../support/receiver.js';
import { addService, cleanup, httpBody, startWorld, type World } from '../deploy/deploy-world.js';
import { sleep, until } from '../../support/until.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';
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

export interface Chaos {
  w: World;
  app: Awaited<ReturnType<typeof addService>>;
  controller: Controller;
  api: () => HttpClient;
  db: Knex;
  sse: SseClient;
  receiver: Receiver;
  /** The highest event id before the SSE client connected. */
  firstEventId: number;
  token: string;
}

/** A service deployed (v1) on s1 and s2, then handed to a controller child process. */
export async function startChaos(name: string): Promise<Chaos> {
  const w = await startWorld();
  // a generous healthcheck: on a loaded machine the image's own (5 s) times out and rolls back
  const app = await addService(w, name, { servers: ['s1', 's2'], healthCheck: { test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 60, retries: 5 } });
  await deployWaiting(w.admin, app.service.id, 'v1');
  const receiver = await new Receiver().start();
  const hook = await w.admin.post('/api/admin/webhooks', { name: `chaos-${name}`, url: `${receiver.url}/hook`, enabled: true });
  expect(hook.status, hook.text).to.equal(201);
  const c = w.s.config;
  const env = {
    DATABASE_URL: c.databaseUrl!, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0',
    // the webhook receiver listens on loopback (test/support/outgoing-allow.ts)
    OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
    SCHEDULER_HEALTH_CHECK_SEC: '2', SCHEDULER_DRIFT_CHECK_SEC: '3', SHUTDOWN_GRACE_SEC: '5',
    STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-chaos-')),
  };
  // the in-process service stops (its database stays): only the child controller runs
  await w.svc.stop();
  const db = createKnex(c.databaseUrl!, 2);
  const [{ max }] = await db('events').max('id as max');
  const controller = new Controller(env);
  await controller.start();
  const token = w.admin.token!;
  const sse = new SseClient(() => controller.url, token);
  sse.start();
  await until('the SSE client to connect', async () => sse.connects > 0, THROUGH_FAULTS);
  return { w, app, controller, api: () => new HttpClient(controller.url, token), db, sse, receiver, firstEventId: Number(max ?? 0), token };
}

export async function stopChaos(c: Chaos | undefined): Promise<void> {
  if (!c) return;
  c.sse.stop();
  await c.controller.kill('SIGTERM').catch(() => undefined);
  await c.receiver.stop?.();
  await c.db.destroy();
  await cleanup(c.w);
}

/**
 * Deploys and waits for success; one retry, because on an overloaded machine a container's first
 * healthcheck can time out (the plan then rolls back correctly, which is not what is under test).
 */
export async function deployWaiting(api: HttpClient, serviceId: string, imageTag: string): Promise<void> {
  let res;
  for (let attempt = 0; attempt < 2; attempt++) {
    res = await api.post(`/api/services/${serviceId}/deploy?wait=true`, { imageTag, strategy: 'parallel' });
    if (res.body.status === 'succeeded') return;
  }
  expect(res!.body.status, res!.text).to.equal('succeeded');
}

const TERMINAL = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];

/** What must hold after every fault, once things have had the time to settle. */
export async function assertHealthy(c: Chaos, opts: { versions?: string[] } = {}): Promise<void> {
  // the controller is up and answers from the database
  expect(c.controller.running, 'the controller is running').to.equal(true);
  await until('the API to answer from the database again', async () => (await c.api().get('/api/environments')).status === 200, { ...THROUGH_FAULTS, everyMs: 250 });
  // no plan is left running
  await until('every plan to end', async () => {
    const open = await c.db('deployment_plans').whereNotIn('status', TERMINAL);
    return open.length === 0;
  }, { ...THROUGH_FAULTS, timeoutMs: 90_000, everyMs: 250 });
  expect(await c.db('plan_steps').whereIn('plan_steps.status', ['running', 'pending']).join('deployment_plans', 'deployment_plans.id', 'plan_steps.planId')
    .whereIn('deployment_plans.status', TERMINAL).select('plan_steps.id')).to.have.length(0);
  // every container runs one of the versions, and answers
  const versions = opts.versions ?? ['v1', 'v2'];
  for (const d of c.app.deployments) {
    const server = d.containerName.split('-').at(-1)!;
    const body = await httpBody(server, d.containerName);
    expect(versions.some((v) => body.includes(`web ${v}`)), `${d.containerName} answers ${body}`).to.equal(true);
  }
  // the SSE client got every stream event published since it connected, once each
  const wanted = (await c.db('events').where('id', '>', c.firstEventId).whereIn('type', STREAM_TYPES).select('id')).map((r) => Number(r.id));
  await until('the SSE client to have every event', async () => wanted.every((id) => c.sse.ids.includes(id)), { ...THROUGH_FAULTS, timeoutMs: 30_000 })
    .catch(() => {
      const missing = wanted.filter((id) => !c.sse.ids.includes(id));
      throw new Error(`the SSE client missed ${missing.length} of ${wanted.length} events: ${missing.slice(0, 20).join(', ')}`);
    });
  expect(new Set(c.sse.ids).size, 'no event twice on the stream').to.equal(c.sse.ids.length);
  // outgoing webhooks: every delivery the outbox holds was received, and none twice
  await until('the outbox to be empty', async () => (await c.db('delivery_outbox').whereIn('status', ['pending', 'delivering'])).length === 0, { ...THROUGH_FAULTS, everyMs: 250 });
  const sent = (await c.db('delivery_outbox').where({ kind: 'webhook', status: 'succeeded' }).select('id')).map((r) => String(r.id));
  const received = c.receiver.requests.map((r) => String(r.headers['x-webhook-delivery']));
  expect(new Set(received).size, 'no webhook delivery received twice').to.equal(received.length);
  expect([...received].sort()).to.deep.equal([...sent].sort());
  // and nothing was left unhandled
  expect(c.controller.unhandled(), 'unhandled rejections in the controller log').to.deep.equal([]);
}
