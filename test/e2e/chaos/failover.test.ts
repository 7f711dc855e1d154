// PostgreSQL failing over to a promoted streaming standby while two controller replicas work: the
// replicas are given both hosts (DATABASE_URL host list, target_session_attrs=read-write) and must
// follow the standby once it is promoted, with nothing in between but 503s (docs/replicas.md).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../../controller/store/knex.js';
import { HttpClient } from '../../support/http-client.js';
import { PostgresPair, type PairUrls } from '../../support/postgres-pair.js';
import { Receiver } from '../../support/receiver.js';
import { TEST_ALLOW_LIST } from '../../support/outgoing-allow.js';
import { sleep, until } from '../../support/until.js';
import { addService, cleanup, startWorld, type World } from '../deploy/deploy-world.js';
import { assertHealthy, Controller, deployWaiting, SseClient, THROUGH_FAULTS, type Chaos } from './chaos-world.js';

const run = promisify(execFile);
const TERMINAL = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];

describe('PostgreSQL failover to a promoted standby (e2e)', function () {
  this.timeout(600_000);
  const pair = new PostgresPair();
  let urls: PairUrls;
  let w: World | undefined;
  let app: Awaited<ReturnType<typeof addService>>;
  let a: Controller;
  let b: Controller;
  let sse: SseClient;
  let receiver: Receiver;
  let primaryDb: Knex | null = null;
  let newPrimaryDb: Knex | null = null;
  let firstEventId = 0;

  before(async () => {
    urls = await pair.up();
    w = await startWorld();
    app = await addService(w, 'failover', { servers: ['s1', 's2'], healthCheck: { test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 60, retries: 5 } });
    await deployWaiting(w.admin, app.service.id, 'v1');
    const c = w.s.config;
    await w.svc.stop();
    // the world (servers, keys, the service deployed) moves to the pair's primary, which streams it to the standby
    await run('bash', ['-c', 'set -o pipefail; B=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1); "$B/pg_dump" --no-owner --no-privileges -d "$1" | "$B/psql" -q -v ON_ERROR_STOP=1 -d "$2" >/dev/null',
      '_', c.databaseUrl!, urls.primary]);
    const env = {
      DATABASE_URL: urls.hostList, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST,
      SCHEDULER_HEALTH_CHECK_SEC: '2', SCHEDULER_DRIFT_CHECK_SEC: '3', SHUTDOWN_GRACE_SEC: '5', LEADER_RETRY_MS: '1000',
    };
    const replica = () => new Controller({ ...env, STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-failover-')) });
    a = replica();
    b = replica();
    await a.start();
    await b.start();
    primaryDb = createKnex(urls.primary, 2);
    const [{ max }] = await primaryDb('events').max('id as max');
    firstEventId = Number(max ?? 0);
    sse = new SseClient(() => a.url, w.admin.token!);
    sse.start();
    await until('the SSE client to connect', async () => sse.connects > 0, THROUGH_FAULTS);
    receiver = await new Receiver().start();
  });

  after(async () => {
    sse?.stop();
    await a?.kill('SIGTERM').catch(() => undefined);
    await b?.kill('SIGTERM').catch(() => undefined);
    await primaryDb?.destroy().catch(() => undefined);
    await newPrimaryDb?.destroy().catch(() => undefined);
    await receiver?.stop?.();
    await pair.down().catch(() => undefined);
    await cleanup(w);
  });

  it('the primary stopped mid rolling deploy and the standby promoted: 503s only until then, every write on the new primary, leadership and events carried over', async () => {
    const api = () => new HttpClient(a.url, w!.admin.token!);
    const deploy = await api().post(`/api/services/${app.service.id}/deploy`, { imageTag: 'v2', strategy: 'rolling' });
    expect(deploy.status, deploy.text).to.equal(202);
    await until('the first step to run', async () => (await primaryDb!('plan_steps').where({ planId: deploy.body.id }).whereIn('status', ['running', 'succeeded'])).length > 0,
      { ...THROUGH_FAULTS, everyMs: 20 });
    await primaryDb!.destroy();
    primaryDb = null;

    // a client that keeps asking all along, noting whether the standby had been promoted when it asked
    // and a writer creating environments (one transaction each, with its audit row)
    const answers: Array<{ status: number; promoted: boolean; text: string }> = [];
    const writes: Array<{ name: string; status: number; withoutPrimary: boolean }> = [];
    let stopped = false;
    let promoted = false;
    let asking = true;
    const asker = (async () => {
      while (asking) {
        const was = promoted;
        const res = await api().get('/api/environments').catch((e: Error) => ({ status: 0, text: e.message }));
        answers.push({ status: res.status, promoted: was, text: res.status === 200 ? '' : res.text });
        await sleep(100);
      }
    })();
    const writer = (async () => {
      for (let n = 0; asking; n++) {
        const name = `failover-${n}`;
        const withoutPrimary = stopped && !promoted;
        const res = await api().post('/api/environments', { name }).catch((e: Error) => ({ status: 0, text: e.message }));
        writes.push({ name, status: res.status, withoutPrimary });
        await sleep(150);
      }
    })();
    const logFrom = { a: a.log.length, b: b.log.length };

    stopped = true;
    await pair.stopPrimary();
    await until('the API to answer 503 while no host accepts writes', async () => answers.some((x) => x.status === 503), THROUGH_FAULTS);
    await pair.promote();
    promoted = true;
    await until('the API to answer from the new primary', async () => answers.some((x) => x.promoted && x.status === 200), THROUGH_FAULTS);
    const settled = answers.length;
    await until('thirty more answers', async () => answers.length >= settled + 30, THROUGH_FAULTS);
    asking = false;
    await Promise.all([asker, writer]);

    expect(answers.filter((x) => x.status !== 200 && x.status !== 503), 'only 2xx and 503 all along').to.deep.equal([]);
    const firstOk = answers.findIndex((x) => x.promoted && x.status === 200);
    expect(answers.slice(firstOk).filter((x) => x.status !== 200), 'no 503 once the new primary answered').to.deep.equal([]);
    expect(answers.filter((x) => x.status === 503).every((x) => /database/i.test(x.text)), 'the 503s say the database is unreachable').to.equal(true);

    newPrimaryDb = createKnex(urls.standby, 2);
    const db = newPrimaryDb;
    // every write answered 201 is on the new primary with its audit row (nothing acknowledged was lost)
    expect(writes.filter((x) => x.status !== 201 && x.status !== 503), 'writes answered only 201 and 503').to.deep.equal([]);
    // (a write sent while no host accepted writes either waited for the promotion or answered 503)
    expect(writes.some((x) => x.withoutPrimary), 'some writes were sent while no host accepted writes').to.equal(true);
    const acknowledged = writes.filter((x) => x.status === 201).map((x) => x.name);
    const made = await db('environments').whereIn('name', acknowledged).select('id', 'name');
    expect(made.map((e) => e.name).sort()).to.deep.equal([...acknowledged].sort());
    const audited = new Set((await db('audit_logs').whereIn('resourceId', made.map((e) => e.id)).select('resourceId')).map((r) => r.resourceId));
    expect(made.filter((e) => !audited.has(e.id)).map((e) => e.name), 'acknowledged environments without their audit row').to.deep.equal([]);

    // the rolling deploy ends (finished, or failed and rolled back saying why), never left running
    const plan = await until('the plan to end', async () => {
      const row = await db('deployment_plans').where({ id: deploy.body.id }).first();
      return TERMINAL.includes(row.status) && row;
    }, { ...THROUGH_FAULTS, timeoutMs: 180_000, everyMs: 250 });
    expect(['succeeded', 'rolled_back', 'failed'], `plan ${plan.status}`).to.include(plan.status);
    if (plan.status !== 'succeeded') {
      const errors = (await db('plan_steps').where({ planId: deploy.body.id }).whereNotNull('error').select('error')).map((s) => s.error).join('\n');
      expect(errors).to.match(/database|controller stopped/);
    }

    // leadership was lost with the old primary's session and taken again on the new one
    await until('a replica to lead again', async () => a.log.slice(logFrom.a).includes('this replica is the leader')
      || b.log.slice(logFrom.b).includes('this replica is the leader'), THROUGH_FAULTS);
    const locks = await db.raw("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted");
    expect(locks.rows[0].n, 'the leader lock is held on the new primary').to.be.greaterThan(0);

    // a write made now lands on the new primary (the old one is stopped: it cannot be anywhere else)
    let after;
    for (let attempt = 0; attempt < 2 && after?.body.status !== 'succeeded'; attempt++) {
      after = await api().post(`/api/services/${app.service.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'parallel' });
    }
    expect(after!.body.status, after!.text).to.equal('succeeded');
    const row = await db('deployment_plans').where({ id: after!.body.id }).first();
    expect(row?.status, 'the plan row is on the new primary').to.equal('succeeded');

    // and what must hold after any fault: plans ended, containers answer, every event reached the SSE client
    const c: Chaos = {
      w: w!, app, controller: a, api, db, sse, receiver, firstEventId, token: w!.admin.token!,
    };
    await assertHealthy(c, { versions: ['v1'] });
    expect(b.unhandled(), 'unhandled rejections in the second replica').to.deep.equal([]);
  });
});
