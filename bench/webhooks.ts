// bench/webhooks.ts - outgoing webhook throughput through the durable outbox.
//   DATABASE_URL=postgres://… npx tsx bench/webhooks.ts [events=1000]
// Starts the real service on a fresh database, subscribes 5 loopback receivers to every event,
// publishes N events and times the deliveries. Three runs: all 5 receivers healthy; one answering
// 500 (retried per the system settings); one hanging until the attempt timeout. Prints deliveries
// per second to the healthy receivers in each run, so a slow one visibly does (or does not) slow
// the others.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../controller/config/config.js';
import { createLogger } from '../controller/logger.js';
import { startService } from '../controller/serve.js';
import { createApp } from '../api/app.js';
import { RECONCILERS } from '../reconcilers/wiring.js';
import { createTestDatabase, dropTestDatabases } from '../test/support/test-database.js';
import { Receiver, type Mode } from '../test/support/receiver.js';

const EVENTS = Number(process.argv[2] ?? 1000);

async function run(label: string, badMode: Mode | null) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-bench-'));
  const config = loadConfig({
    STEVEDORE_STATE_DIR: stateDir, DATABASE_URL: await createTestDatabase(), PORT: '0', HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error',
    // the receivers listen on loopback
    OUTGOING_ALLOW_LIST: '127.0.0.1',
  });
  const svc = await startService(createApp, RECONCILERS, config, createLogger('error'));
  const db = svc.services.db;
  const receivers = await Promise.all(Array.from({ length: 5 }, () => new Receiver().start()));
  try {
    await svc.services.systemSettings.patch({ webhookMaxRetries: 3, webhookTimeoutMs: 2000, webhookRetryDelaysMs: [200, 500] });
    if (badMode) receivers[4].mode = badMode;
    for (const [i, r] of receivers.entries()) {
      await db('outgoing_webhooks').insert({ name: `r${i}`, url: r.url, secretEnc: svc.services.secretBox.seal(`secret-${i}`), enabled: true });
    }
    const good = receivers.slice(0, badMode ? 4 : 5);
    // The events are published first (with delivery paused), then the clock runs from the moment
    // delivery starts to the moment every healthy receiver has all of them: fan-out + outbox.
    await svc.services.deliveries.fanout.stop();
    await svc.services.deliveries.outbox.stop();
    const pubStart = performance.now();
    for (let n = 0; n < EVENTS; n += 50) {
      await Promise.all(Array.from({ length: Math.min(50, EVENTS - n) }, (_, k) =>
        svc.services.events.publish('deployment.success', null, { n: n + k, planName: `p${n + k}`, imageTag: '1.0.0', serviceCount: 1 })));
    }
    const published = performance.now() - pubStart;
    const started = performance.now();
    await svc.services.deliveries.start();
    let fannedOut = 0;
    const watch = (async () => {
      for (;;) {
        const [{ n }] = await db('event_fanouts').count({ n: '*' });
        if (Number(n) >= EVENTS) { fannedOut = performance.now() - started; return; }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await Promise.all(good.map((r) => r.waitFor(() => r.delivered.filter((x) => x.json?.event === 'deployment.success').length >= EVENTS, 120_000, `${EVENTS} deliveries`)));
    const elapsed = (performance.now() - started) / 1000;
    await watch;
    const delivered = good.reduce((a, r) => a + r.delivered.filter((x) => x.json?.event === 'deployment.success').length, 0);
    const bad = badMode ? receivers[4].requests.length : 0;
    console.log(`${label.padEnd(34)} ${delivered} deliveries to ${good.length} healthy receivers in ${elapsed.toFixed(2)} s `
      + `= ${Math.round(delivered / elapsed)} deliveries/s (publish took ${(published / 1000).toFixed(2)} s, fan-out done after ${(fannedOut / 1000).toFixed(2)} s`
      + `${badMode ? `; the ${badMode === 'fail' ? 'failing' : 'hanging'} receiver saw ${bad} requests meanwhile` : ''})`);
    return delivered / elapsed;
  } finally {
    for (const r of receivers) await r.stop();
    await svc.stop();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

const base = await run('5 healthy receivers', null);
const failing = await run('4 healthy + 1 answering 500', 'fail');
const hanging = await run('4 healthy + 1 hanging (2 s timeout)', 'hang');
console.log(`healthy-receiver rate with a failing peer: ${Math.round((failing / base) * 100)}% of the all-healthy rate; `
  + `with a hanging peer: ${Math.round((hanging / base) * 100)}%`);
await dropTestDatabases();
process.exit(0);
