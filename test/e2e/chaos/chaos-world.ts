// What every chaos test needs: the controller as a child process (`stevedore serve`, small
// cadences), an SSE client that reconnects with Last-Event-ID like a browser (both in
// controller-child.ts), an outgoing webhook receiver, and the checks that must hold after every fault.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { HttpClient } from '../../support/http-client.js';
import { Receiver } from '../../support/receiver.js';
import { addService, cleanup, httpBody, startWorld, type World } from '../deploy/deploy-world.js';
import { until } from '../../support/until.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';
import { Controller, SseClient, STREAM_TYPES, THROUGH_FAULTS } from './controller-child.js';

export { Controller, SseClient, STREAM_TYPES, THROUGH_FAULTS };

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
