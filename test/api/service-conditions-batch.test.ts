import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createService, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { refreshServiceConditions, refreshServicesConditions } from '../../reconcilers/service/record-rollout.js';

// A reconcile batch refreshes its services' conditions together (refreshServicesConditions): the
// same conditions as one refresh per service, and no write for a service whose status is unchanged.
describe('service conditions refreshed for a batch of services', () => {
  let svc: TestService;
  let operator: HttpClient;
  let envId: string;

  before(async () => {
    ({ svc, operator, envId } = await startWithRoles());
  });
  after(() => svc.stop());

  it('writes what one refresh per service writes (a failed rollout, a plan in motion, nothing) and leaves unchanged rows alone', async () => {
    const s = svc.services;
    const server = await insertServer(svc, envId);
    const web = await createService(operator, envId, { name: 'web' });
    const api = await createService(operator, envId, { name: 'api' });
    const idle = await createService(operator, envId, { name: 'idle' });
    for (const [service, containerName] of [[web, 'web-1'], [api, 'api-1']] as const) {
      const d = await operator.post(`/api/services/${service.id}/deployments`, { serverId: server.id, containerName });
      expect(d.status, d.text).to.equal(201);
    }
    const degraded = { type: 'Degraded', status: 'True', reason: 'RolloutFailed', message: 'health check failed', lastTransitionTime: '2026-11-26T06:00:00.000Z' };
    await s.db('deployments').where({ containerName: 'web-1' }).update({ conditions: JSON.stringify([degraded]) });
    const plan = await operator.post(`/api/environments/${envId}/deployment-plans`, { name: 'roll api', items: [{ serviceId: api.id }] });
    expect(plan.status, plan.text).to.equal(201);
    const ids = [web.id, api.id, idle.id];
    const read = async () => (await s.db('services').whereIn('id', ids).orderBy('name').select('name', 'conditions', 'observedGeneration'))
      .map((r) => ({ ...r, conditions: r.conditions.map(({ lastTransitionTime: _, ...c }: Record<string, unknown>) => c) }));
    const reset = () => s.db('services').whereIn('id', ids).update({ conditions: '[]', observedGeneration: null });

    await reset();
    for (const id of ids) await refreshServiceConditions(s, id);
    const oneByOne = await read();
    await reset();
    await refreshServicesConditions(s, ids);
    const batched = await read();
    expect(batched).to.deep.equal(oneByOne);
    // what is compared says something: the failed rollout, the plan in motion, observedGeneration
    const [apiRow, idleRow, webRow] = batched;
    expect(webRow.conditions.find((c: { type: string }) => c.type === 'Degraded')).to.include({ status: 'True' });
    expect(apiRow.conditions.find((c: { type: string }) => c.type === 'Progressing')).to.include({ status: 'True', reason: 'PlanRunning' });
    expect(idleRow.observedGeneration).to.be.a('number');

    // nothing changed: no row is written again (its xmin, the writing transaction, stays)
    const xmin = async () => (await s.db.raw('SELECT id, xmin::text AS x FROM services WHERE id = ANY(?) ORDER BY id', [ids])).rows.map((r: { x: string }) => r.x);
    const before = await xmin();
    await refreshServicesConditions(s, ids);
    expect(await xmin()).to.deep.equal(before);
    await refreshServicesConditions(s, []);
  });
});
