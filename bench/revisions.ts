// bench/revisions.ts - what revisions cost. (1) Accepting a revision as the entrance does it for a
// deploy (reconcilers/entrance.ts: prepareRevisions before the service's row lock, the service
// and its deployments read and every deployment rendered and hashed; acceptRevisions under it,
// the deployments read again and the revision written as desired; prune), for a young service
// and for one at its history limit, with the queries each part sends, next to the whole deploy request it is part of (POST /deploy until its 202, the
// floor of the same run). (2) Listing a page and diffing two revisions of a service that has 1,000.
//   DATABASE_URL=postgres://… npx tsx bench/revisions.ts [rounds=200]
// The service's server is unreachable (127.0.0.1 port 1): each plan fails at once in the
// background, so what is timed is the entrance and the store, never a server.
import { newSshKeyPair } from '../test/support/ssh-key.js';
import { startTestService } from '../test/support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../test/support/fixtures.js';
import { randomUUID } from 'node:crypto';
import { acceptRevisions, prepareRevisions } from '../reconcilers/entrance.js';

const rounds = Number(process.argv[2] ?? 200);
const DEPLOYMENTS = 3;
const HISTORY = 1000;

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1] };
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const show = (label: string, xs: number[]) => {
  const { p50, p95, max } = stats(xs);
  console.log(`${label.padEnd(50)} p50 ${ms(p50)}  p95 ${ms(p95)}  max ${ms(max)}  (n=${xs.length})`);
  return p50;
};

const svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600', LOG_LEVEL: 'warn' });
const s = svc.services;
try {
  const admin = await bootstrapAdmin(svc.http);
  const envId = (await createEnvironment(admin)).id;
  await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
  await s.settings.patch(envId, 'operations', { revisionHistoryLimit: HISTORY });
  for (let i = 0; i < 5; i++) await admin.post(`/api/environments/${envId}/secrets`, { key: `SECRET_${i}`, value: `s3cr3t-value-${i}-${'x'.repeat(24)}` });
  for (let i = 0; i < 10; i++) await admin.post(`/api/environments/${envId}/vars`, { key: `VAR_${i}`, value: `value-${i}` });
  const image = await s.containerImages.insert({ environmentId: envId, imageName: 'registry.test:5000/acme/web' } as never);
  const env = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`KEY_${i}`, i % 4 === 0 ? `\${SECRET_${i % 5}}` : `prefix-\${VAR_${i % 10}}`]));
  const service = await s.services.create(envId, { name: 'web', containerImageId: image.id, imageTag: 'v1', env, ports: ['8080:80'] });
  for (let d = 0; d < DEPLOYMENTS; d++) {
    const server = await s.servers.insert({ environmentId: envId, name: `s${d}`, hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    await s.deployments.create(service.id, envId, { serverId: server.id, containerName: `web-${d}` });
  }
  console.log(`revisions: a service with ${DEPLOYMENTS} deployments, ${Object.keys(env).length} env keys (5 with secrets), ${rounds} rounds`);

  // (1) accepting a revision, each round a new spec (a new tag), as the entrance does it: rendered
  // before the row lock, then compared and written as desired under it, in a transaction of its
  // own that the round rolls back (the store does not grow). Not timed: what a deploy does with or
  // without revisions (the lock, the desired tag written, the plan). The deployments read under
  // the lock is timed, though the plan's steps are then built from it (the plan would read them).
  // Twice: a young service (a few revisions), then one at its history limit, where each new
  // revision also drops the oldest (the steady state of a service deployed often)
  const queries = { before: 0, under: 0 };
  let phase: keyof typeof queries | null = null;
  s.db.on('query', () => { if (phase) queries[phase]++; });
  const acceptRounds = async (label: string) => {
    const accept: number[] = [];
    const render: number[] = [];
    const locked: number[] = [];
    queries.before = queries.under = 0;
    for (let r = 0; r < rounds + 10; r++) {
      const tag = `v${r}`;
      const req = { environmentId: envId, items: [{ serviceId: service.id, imageTag: tag }], trigger: 'bench', createdBy: null };
      const t0 = performance.now();
      phase = 'before';
      const prepared = await prepareRevisions(s, req);
      phase = null;
      const t1 = performance.now();
      let t2 = 0;
      await s.db.transaction(async (trx) => {
        const [held] = await s.services.lockForUpdate([service.id], trx);
        const written = (await s.services.writeDesiredTag(service.id, tag, trx)) ?? held;
        const a0 = performance.now();
        phase = 'under';
        const out = await acceptRevisions(s, req, [written], trx, prepared, randomUUID());
        phase = null;
        if (!out.get(service.id)) throw new Error('the round made no revision');
        t2 = performance.now() - a0;
        await trx.rollback();
      }).catch((e: Error) => { if (!/rollback|Transaction rejected/i.test(e.message)) throw e; });
      if (r >= 10) {
        render.push(t1 - t0);
        locked.push(t2);
        accept.push(t1 - t0 + t2);
      }
    }
    // the process's every query while a part ran (a background worker's too, rarely)
    const n = rounds + 10;
    console.log(`${label}: queries per revision ${(queries.before / n).toFixed(1)} before the lock, ${(queries.under / n).toFixed(1)} under it`);
    show('  before the lock (read, render, hash)', render);
    show('  under the lock (read, compare, write desired)', locked);
    return show('  a revision in all', accept);
  };
  const acceptP50 = await acceptRounds('a young service');
  const LIMIT = 50;
  await s.settings.patch(envId, 'operations', { revisionHistoryLimit: LIMIT });
  const spec = (await prepareRevisions(s, { environmentId: envId, items: [{ serviceId: service.id, imageTag: 'old' }], trigger: 'bench' })).get(service.id)!.rendered!.spec;
  for (let i = (await s.revisions.latest(service.id))?.revision ?? 0; i < LIMIT; i++) {
    await s.transaction((trx) => s.revisions.append({ serviceId: service.id, environmentId: envId, spec: spec as never, specHash: `limit-${i}`, source: 'bench', createdBy: null }, i, trx));
  }
  await acceptRounds(`at its history limit (${LIMIT}: each drops one)`);
  await s.settings.patch(envId, 'operations', { revisionHistoryLimit: HISTORY });

  // the whole request it is part of: POST /deploy until the 202 (the plan then fails in the background)
  const request: number[] = [];
  for (let r = 0; r < Math.min(rounds, 60) + 5; r++) {
    const t0 = performance.now();
    const res = await admin.post(`/api/services/${service.id}/deploy`, { imageTag: `d${r}` });
    const t = performance.now() - t0;
    if (res.status !== 202) throw new Error(`deploy answered ${res.status}: ${res.text}`);
    await s.plans.waitFor(res.body.id, 30_000);
    if (r >= 5) request.push(t);
  }
  const requestP50 = show('POST /deploy until 202 (floor: the whole request)', request);
  console.log(`a revision is ${((acceptP50 / requestP50) * 100).toFixed(0)}% of a deploy request's time to 202 (target: < 5 ms added)`);

  // (2) 1,000 revisions: list a page, diff the first with the last
  const base = (await s.revisions.latest(service.id))!;
  const have = (await s.db('service_revisions').where({ serviceId: service.id }).count({ n: '*' }))[0].n as number;
  for (let i = Number(have); i < HISTORY; i++) {
    const spec = JSON.parse(JSON.stringify(base.spec));
    spec.image.tag = `h${i}`;
    spec.template.env.KEY_1 = `changed-${i}`;
    const newest = (await s.revisions.latest(service.id))!.revision;
    await s.transaction((trx) => s.revisions.append({ serviceId: service.id, environmentId: envId, spec, specHash: `h${i}`, source: 'bench', createdBy: null }, newest, trx));
  }
  const count = (await s.db('service_revisions').where({ serviceId: service.id }).count({ n: '*' }))[0].n;
  const last = (await s.revisions.latest(service.id))!.revision;
  const list: number[] = [];
  const diff: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    const page = await admin.get(`/api/services/${service.id}/revisions?limit=50&offset=${(r * 50) % 950}`);
    list.push(performance.now() - t0);
    if (page.status !== 200 || page.body.items.length !== 50) throw new Error(`list answered ${page.status}`);
    t0 = performance.now();
    const d = await admin.get(`/api/services/${service.id}/revisions/diff?from=1&to=${last}`);
    diff.push(performance.now() - t0);
    if (d.status !== 200 || !d.body.changes.length) throw new Error(`diff answered ${d.status}`);
  }
  console.log(`among ${count} revisions of one service (over HTTP, authenticated):`);
  show('GET …/revisions?limit=50 (a page)', list);
  show('GET …/revisions/diff?from=1&to=last', diff);
  console.log('targets: listing and diffing < 50 ms');
} finally {
  await svc.stop();
}
