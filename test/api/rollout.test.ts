// A service's rollout field and the wave routes of plans (promote, pause, resume) through the API:
// validation, roles, 404s and 409s in the spec's error envelope, and the waves a plan is built
// with. Waves running on real servers: test/e2e/progressive/canary.test.ts.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createImage, expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { buildPlan } from '../../reconcilers/deployment/plans/plan-builder.js';

describe('service rollout and plan waves (promote, pause, resume)', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let imageId: string;

  before(async () => {
    ({ svc, admin, operator, viewer, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/web')).id;
  });
  after(() => svc.stop());

  const canary = { strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 30 }, { servers: '50%' }, { pause: true }], analysis: { durationSec: 20, maxRestarts: 1, httpGet: { port: 80, path: '/health' }, metrics: [{ name: 'cpuPercent', max: 80 }] } };

  it('a service takes a rollout, reads it back, and a PATCH of it starts no plan', async () => {
    const res = await operator.post(`/api/environments/${envId}/services`, { name: 'waved', containerImageId: imageId, imageTag: 'v1', rollout: canary });
    expect(res.status, res.text).to.equal(201);
    // healthChecks defaults to true
    expect(res.body.rollout).to.deep.equal({ ...canary, analysis: { healthChecks: true, ...canary.analysis } });
    const plans = await svc.services.db('deployment_plans').count({ n: '*' });
    const patched = await operator.patch(`/api/services/${res.body.id}`, { rollout: { strategy: 'rolling', maxUnavailable: '50%' } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.rollout).to.deep.equal({ strategy: 'rolling', maxUnavailable: '50%' });
    expect(await svc.services.db('deployment_plans').count({ n: '*' })).to.deep.equal(plans);
  });

  it('refuses rollouts that are not the spec\'s, naming the field, and writes nothing', async () => {
    const bad: unknown[] = [
      { strategy: 'blue-green' },
      { strategy: 'rolling', steps: [{ servers: 1 }] },
      { strategy: 'canary' },
      { strategy: 'canary', steps: [{ pause: true }] },
      { strategy: 'canary', steps: [{ servers: '150%' }] },
      { strategy: 'canary', steps: [{ servers: 0 }] },
      { strategy: 'canary', steps: [{ servers: 1, pauseSec: 3 }] },
      { strategy: 'canary', steps: [{ servers: 1 }, { pause: false }] },
      { strategy: 'canary', steps: [{ servers: 1 }], analysis: { healthChecks: true } },
      { strategy: 'canary', steps: [{ servers: 1 }], analysis: { durationSec: 5, metrics: [{ name: 'diskPercent', max: 1 }] } },
      { strategy: 'canary', steps: [{ servers: 1 }], analysis: { durationSec: 5, httpGet: { port: 80, path: 'no-slash' } } },
    ];
    for (const rollout of bad) {
      const res = await operator.post(`/api/environments/${envId}/services`, { name: 'bad-rollout', containerImageId: imageId, rollout });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.field ?? '', JSON.stringify(rollout)).to.match(/^rollout/);
    }
    expect((await viewer.get(`/api/environments/${envId}/services?limit=200`)).body.items.map((x: { name: string }) => x.name)).to.not.include('bad-rollout');
  });

  it('a plan of a service with a rollout has waves: the canary first, in server order', async () => {
    const servers = [];
    for (const n of ['w1', 'w2', 'w3']) servers.push((await admin.post(`/api/environments/${envId}/servers`, { name: n, hostname: `${n}.internal`, labels: { tier: 'w' } })).body.id);
    const created = await operator.post(`/api/environments/${envId}/services`, {
      name: 'waves', containerImageId: imageId, imageTag: 'v1', serverSelector: { matchLabels: { tier: 'w' } },
      rollout: { strategy: 'canary', steps: [{ servers: 1 }, { pause: true }], analysis: { durationSec: 5 } },
    });
    expect(created.status, created.text).to.equal(201);
    const plan = await operator.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: created.body.id }] });
    expect(plan.status, plan.text).to.equal(201);
    expect(plan.body.currentWave).to.equal(null);
    expect(plan.body.steps.map((x: { serverId: string; wave: number }) => [x.serverId, x.wave])).to.deep.equal([[servers[0], 0], [servers[1], 1], [servers[2], 1]]);
    expect(plan.body.waves.map((x: any) => [x.index, x.size, x.pause, !!x.analysis, x.status, x.deployments.length])).to.deep.equal([
      [0, 1, true, true, 'pending', 1], [1, 2, false, false, 'pending', 2],
    ]);
    await operator.post(`/api/deployment-plans/${plan.body.id}/cancel`);

    // a heal restores what is desired: its plan has no waves (and so never waits for a promote)
    const heal = await svc.services.transaction((trx) => buildPlan(svc.services, {
      environmentId: envId, items: [{ serviceId: created.body.id }], trigger: 'drift-heal', name: 'heal waves',
    }, trx));
    expect(heal.waves).to.equal(null);
    expect((await svc.services.plans.steps.ofPlan(heal.id)).map((x) => x.wave)).to.deep.equal([null, null, null]);
    await svc.services.db('deployment_plans').where({ id: heal.id }).update({ status: 'cancelled' });
  });

  /** A plan as a runner leaves it paused after its first wave (another process holds it: nothing here runs it). */
  const pausedPlan = async (phase = 'paused') => {
    const s = svc.services;
    const [row] = await s.db('deployment_plans').insert({
      environmentId: envId, name: 'paused canary', status: 'running', strategy: 'rolling', trigger: 'api', items: JSON.stringify([]),
      owner: randomUUID(), heartbeatAt: new Date(Date.now() + 3_600_000), startedAt: new Date(),
      waves: JSON.stringify([
        { index: 0, stage: 0, serviceId: randomUUID(), serviceName: 'web', size: 1, width: 1, analysis: null, pauseSec: null, pause: true },
        { index: 1, stage: 0, serviceId: randomUUID(), serviceName: 'web', size: 2, width: 1, analysis: null, pauseSec: null, pause: false },
      ]),
      waveState: JSON.stringify({ wave: 0, phase, since: new Date().toISOString(), pauseUntil: null, pausedBy: phase === 'paused' ? 'rollout' : null }),
    }).returning('*');
    return row.id as string;
  };

  it('promote ends a paused wave; pause and resume hold and lift an operator pause; each answers the plan', async () => {
    const id = await pausedPlan();
    const got = await viewer.get(`/api/deployment-plans/${id}`);
    expect(got.body.currentWave).to.deep.include({ index: 0, of: 2, phase: 'paused', pausedBy: 'rollout', pauseUntil: null });
    expect(got.body.waves.map((x: { status: string }) => x.status)).to.deep.equal(['paused', 'pending']);

    const paused = await operator.post(`/api/deployment-plans/${id}/pause`);
    expect(paused.status, paused.text).to.equal(200);
    expect(paused.body.pauseRequested).to.equal(true);
    const resumed = await operator.post(`/api/deployment-plans/${id}/resume`);
    expect(resumed.status, resumed.text).to.equal(200);
    expect(resumed.body.pauseRequested).to.equal(false);
    expectError(await operator.post(`/api/deployment-plans/${id}/resume`), 409, 'CONFLICT');

    const promoted = await operator.post(`/api/deployment-plans/${id}/promote`);
    expect(promoted.status, promoted.text).to.equal(200);
    expect((await svc.services.db('deployment_plans').where({ id }).first()).promotedWave).to.equal(0);
    const audit = await svc.services.db('audit_logs').where({ resourceId: id }).orderBy('createdAt', 'desc').first();
    expect(audit).to.deep.include({ action: 'promoteDeploymentPlan' });
  });

  it('refuses promote of a plan not paused, pause of one not running or without waves, with 409 and nothing changed', async () => {
    const analysing = await pausedPlan('analysing');
    expectError(await operator.post(`/api/deployment-plans/${analysing}/promote`), 409, 'CONFLICT');
    expect((await svc.services.db('deployment_plans').where({ id: analysing }).first()).promotedWave).to.equal(null);
    await svc.services.db('deployment_plans').where({ id: analysing }).update({ status: 'succeeded', finishedAt: new Date() });
    expectError(await operator.post(`/api/deployment-plans/${analysing}/pause`), 409, 'CONFLICT');
    expectError(await operator.post(`/api/deployment-plans/${analysing}/promote`), 409, 'CONFLICT');
    const [plain] = await svc.services.db('deployment_plans').insert({
      environmentId: envId, name: 'no waves', status: 'running', strategy: 'rolling', trigger: 'api', items: JSON.stringify([]),
      owner: randomUUID(), heartbeatAt: new Date(Date.now() + 3_600_000),
    }).returning('*');
    const res = await operator.post(`/api/deployment-plans/${plain.id}/pause`);
    expectError(res, 409, 'CONFLICT');
    expect(res.body.message).to.match(/no waves/);
    expect((await svc.services.db('deployment_plans').where({ id: plain.id }).first()).pauseRequested).to.equal(false);
  });

  it('the wave routes are operator writes: 401 without a token, 403 for a viewer, 404 for an unknown plan', async () => {
    const id = await pausedPlan();
    for (const action of ['promote', 'pause', 'resume']) {
      expectError(await admin.withToken(null).post(`/api/deployment-plans/${id}/${action}`), 401, 'UNAUTHORIZED');
      expectError(await viewer.post(`/api/deployment-plans/${id}/${action}`), 403, 'FORBIDDEN_ROLE');
      expectError(await operator.post(`/api/deployment-plans/${randomUUID()}/${action}`), 404, 'NOT_FOUND');
    }
    const row = await svc.services.db('deployment_plans').where({ id }).first();
    expect(row).to.deep.include({ pauseRequested: false, promotedWave: null });
  });
});
