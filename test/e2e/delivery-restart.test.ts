import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createKnex } from '../../controller/store/knex.js';
import { createLogger } from '../../controller/logger.js';
import { EventBus, EVENTS_CHANNEL } from '../../controller/events/event-bus.js';
import { EventsRepository } from '../../controller/store/repositories/events.js';
import { createTestDatabase } from '../support/test-database.js';
import { Receiver } from '../support/receiver.js';
import { TEST_ALLOW_LIST } from '../support/outgoing-allow.js';
import { until } from '../support/until.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Starts `stevedore serve` as a real child process and resolves once it listens. */
async function serve(databaseUrl: string, stateDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DATABASE_URL: databaseUrl, STEVEDORE_STATE_DIR: stateDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info',
      // the webhook receiver listens on loopback (test/support/outgoing-allow.ts)
      OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST },
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('stevedore listening')) {
        clearTimeout(t);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
  });
  return child;
}

describe('the delivery outbox across a crash', function () {
  this.timeout(60_000);
  const rx = new Receiver();
  let child: ChildProcess | null = null;
  let stateDir: string;

  before(async () => {
    await rx.start();
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-crash-'));
  });
  after(async () => {
    child?.kill('SIGKILL');
    await rx.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  it('a process killed with 50 deliveries pending delivers all 50 after restart, none twice', async () => {
    const url = await createTestDatabase();
    const db = createKnex(url, 2);
    const bus = new EventBus(new EventsRepository(db, EVENTS_CHANNEL), url, createLogger('silent'));
    try {
      await db('system_settings').where('id', 1).update({ values: JSON.stringify({ webhookMaxRetries: 5, webhookTimeoutMs: 1500, webhookRetryDelaysMs: [100] }) });
      const [hook] = await db('outgoing_webhooks').insert({ name: 'ci', url: rx.url + '/hook', enabled: true }).returning('id');
      // The first 10 are answered; then the receiver holds every request open, as a stuck peer would.
      rx.modeFor = (_r, i) => (i < 10 ? 'ok' : 'hang');
      child = await serve(url, stateDir);
      for (let n = 0; n < 50; n++) await bus.publish('deployment.success', null, { n, planName: `p${n}` });
      await rx.waitFor(() => rx.delivered.length >= 10 && rx.hungCount > 0, 15_000, 'ten answered and some held');
      await until('all 50 in the outbox', async () => (await db('delivery_outbox').where({ targetId: hook.id })).length === 50, { timeoutMs: 10_000 });
      // The ten answered ones are recorded (a crash between a receiver's 2xx and that write would
      // send it again: delivery is at-least-once there, and X-Webhook-Delivery lets a receiver dedupe).
      await until('ten recorded', async () => (await db('delivery_outbox').where({ targetId: hook.id, status: 'succeeded' })).length === 10, { timeoutMs: 10_000 });

      const killedAt = Date.now();
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      child = null;
      rx.dropHung();
      rx.modeFor = null;
      rx.mode = 'ok';
      const states = await db('delivery_outbox').where({ kind: 'webhook', targetId: hook.id }).select('status');
      expect(states).to.have.length(50);
      expect(states.filter((s: { status: string }) => s.status !== 'succeeded').length).to.be.at.least(40);

      child = await serve(url, stateDir);
      await rx.waitFor(() => new Set(rx.delivered.map((r) => r.json.data.n)).size === 50, 30_000, 'all 50 answered');
      await until('rows succeeded', async () => (await db('delivery_outbox').where({ targetId: hook.id, status: 'succeeded' })).length === 50, { timeoutMs: 5000 });
      await new Promise((r) => setTimeout(r, 500));
      const answered = rx.delivered.map((r) => r.json.data.n as number);
      if (answered.length !== 50) {
        const dups = answered.filter((n, i) => answered.indexOf(n) !== i);
        console.log('KILLED AT', killedAt, rx.requests.filter((r) => dups.includes(r.json.data.n)).map((r) => [r.json.data.n, r.headers['x-webhook-delivery'], r.at - killedAt, r.answered]));
      }
      expect(answered).to.have.length(50); // each event acknowledged exactly once
      expect(new Set(answered).size).to.equal(50);
      // Requests cut by the crash were never acknowledged; their retries carry the same delivery id.
      for (const r of rx.requests) expect(r.headers['x-webhook-delivery']).to.match(/^\d+$/);
    } finally {
      await bus.stop();
      await db.destroy();
    }
  });
});
