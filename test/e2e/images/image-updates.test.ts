// Images on the fleet: new tags and a re-pushed tag appear in the fleet's registry during the
// test (pushed through the registry API), the update check finds them, auto-update deploys them
// through the one entrance with health gates, a broken version rolls back and is not retried,
// and wrong credentials are refused with a clear message. One shared world for the file.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { addService, cleanup, httpBody, startWorld, waitPlan, type World } from '../deploy/deploy-world.js';
import { retag } from '../../support/registry-retag.js';

describe('e2e: image updates and auto-update', function () {
  this.timeout(420_000); // five plans with health gates; the happy path takes ~1 min on an idle machine
  let w: World;
  let registryId: string;
  const repo = `stevedore-test/auto-${randomBytes(3).toString('hex')}`;
  const web = (tag: string) => ({ repository: 'stevedore-test/web', tag });
  const push = (from: string, tag: string) => retag(w.fleet.registry.address, web(from), { repository: repo, tag });

  before(async function () {
    this.timeout(300_000);
    w = await startWorld();
    const reg = await w.admin.post(`/api/environments/${w.envId}/registries`, { name: 'fleet', type: 'generic', registryUrl: `http://${w.fleet.registry.address}` });
    expect(reg.status, reg.text).to.equal(201);
    registryId = reg.body.id;
  });
  after(() => cleanup(w));

  it('detects a new tag and a re-pushed tag, auto-deploys with health gates, rolls a broken version back and does not retry it', async () => {
    await push('v1', '1.0.0');
    const img = await w.admin.post(`/api/environments/${w.envId}/container-images`, {
      imageName: `${w.fleet.registry.address}/${repo}`, registryConnectionId: registryId, autoUpdate: true, policy: { type: 'semver', range: '^1.0' },
    });
    expect(img.status, img.text).to.equal(201);
    const imageId = img.body.id as string;
    const { service } = await addService(w, 'autoweb', { servers: ['s1'] });
    const container = `autoweb-${w.tag}-s1`;
    expect((await w.admin.post(`/api/container-images/${imageId}/link-service`, { serviceId: service.id })).status).to.equal(200);
    const first = await w.admin.post(`/api/services/${service.id}/deploy?wait=true`, { imageTag: '1.0.0' });
    expect(first.body.status, first.text).to.equal('succeeded');
    const check = () => w.admin.post(`/api/container-images/${imageId}/check-updates`, {});

    const none = await check();
    expect(none.body).to.include({ currentTag: '1.0.0', latestTag: null, updateAvailable: false, autoUpdatePlanId: null });

    // a new tag (and one outside the policy's range, which is ignored)
    await push('v2', '1.1.0');
    await push('v2', '2.0.0');
    const found = await check();
    expect(found.body).to.include({ latestTag: '1.1.0', updateAvailable: true });
    expect(found.body.newTags).to.deep.equal(['1.1.0']);
    expect((await waitPlan(w, found.body.autoUpdatePlanId)).status).to.equal('succeeded');
    expect(await httpBody('s1', container)).to.contain('web v2');
    const tags = await w.admin.get(`/api/services/${service.id}/image-tags`);
    expect(tags.body.tags.map((t: { tag: string }) => t.tag)).to.deep.equal(['2.0.0', '1.1.0', '1.0.0']);

    // a broken version: the health gate fails, the plan rolls back, the old container stays
    await push('unhealthy', '1.2.0');
    const broken = await check();
    expect(broken.body).to.include({ currentTag: '1.1.0', latestTag: '1.2.0' });
    const rolled = await waitPlan(w, broken.body.autoUpdatePlanId);
    expect(rolled.status).to.equal('rolled_back');
    expect(await httpBody('s1', container)).to.contain('web v2');
    const held = await check();
    expect(held.body.autoUpdatePlanId).to.equal(null);
    expect(held.body.held).to.contain('1.2.0 failed and was rolled back');
    expect((await w.admin.get(`/api/container-images/${imageId}`)).body.failedTag).to.equal('1.2.0');
    expect((await check()).body.autoUpdatePlanId, 'not retried').to.equal(null);

    // the current tag re-pushed with other content: found by its digest and deployed again
    const repushed = await push('v1', '1.1.0');
    const moved = await check();
    // found by this check or by the one the rollback's end queued (the reconciler looks on its own too)
    expect(moved.body.autoUpdatePlanId, JSON.stringify(moved.body)).to.be.a('string');
    const seen = await w.s.db('events').where({ type: 'image.update_available' }).whereRaw("data->>'containerImageId' = ?", [imageId]);
    expect(seen.some((e: { data: { changedTags: string[] } }) => e.data.changedTags.includes('1.1.0'))).to.equal(true);
    const plan = await waitPlan(w, moved.body.autoUpdatePlanId);
    expect(plan).to.include({ status: 'succeeded', trigger: 'image-auto-update' });
    expect(await httpBody('s1', container)).to.contain('web v1');
    const digests = await w.admin.get(`/api/container-images/${imageId}/digests`);
    expect(digests.body.items.filter((d: { tag: string }) => d.tag === '1.1.0').map((d: { digest: string }) => d.digest)).to.have.length(2).and.include(repushed);

    // a newer version than the failed one is deployed again
    await push('v2', '1.3.0');
    const newer = await check();
    expect(newer.body.latestTag).to.equal('1.3.0');
    const third = await waitPlan(w, newer.body.autoUpdatePlanId);
    expect(third.status, JSON.stringify({ name: third.name, error: third.error, steps: third.steps?.map((x: { status: string; error: string; imageTag: string }) => [x.status, x.imageTag, x.error]) })).to.equal('succeeded');
    expect(await httpBody('s1', container)).to.contain('web v2');
    await check();
    const image = (await w.admin.get(`/api/container-images/${imageId}`)).body;
    expect(image).to.include({ currentTag: '1.3.0', failedTag: null });
    const events = await w.s.db('events').where({ type: 'image.update_available' }).whereRaw("data->>'containerImageId' = ?", [imageId]);
    expect(events.length).to.be.at.least(3);
  });

  it('wrong credentials are refused with a clear message, basic and bearer alike', async () => {
    const add = async (name: string, address: string, password: string) => (await w.admin.post(`/api/environments/${w.envId}/registries`, {
      name, type: 'generic', registryUrl: `http://${address}`, username: w.fleet.authRegistry.username, password,
    })).body.id as string;
    for (const [kind, address] of [['basic', w.fleet.authRegistry.address], ['bearer', w.fleet.tokenRegistry.address]]) {
      const wrong = await w.admin.post(`/api/registries/${await add(`${kind}-wrong`, address, 'not-the-password')}/test`, {});
      expect(wrong.body, kind).to.include({ ok: false, reachable: true, authenticated: false });
      expect(wrong.body.message, kind).to.contain('refused the credentials').and.not.contain('not-the-password');
      const right = await w.admin.post(`/api/registries/${await add(`${kind}-right`, address, w.fleet.authRegistry.password)}/test`, {});
      expect(right.body, kind).to.include({ ok: true, authenticated: true });
      expect(right.body.repositoryCount, kind).to.be.at.least(2);
    }
    const wrongId = (await w.admin.get(`/api/environments/${w.envId}/registries`)).body.items.find((r: { name: string }) => r.name === 'basic-wrong').id;
    const img = await w.admin.post(`/api/environments/${w.envId}/container-images`, { imageName: `${w.fleet.authRegistry.address}/stevedore-test/web`, registryConnectionId: wrongId });
    const check = await w.admin.post(`/api/container-images/${img.body.id}/check-updates`, {});
    expect(check.status).to.equal(503);
    expect(check.body.message).to.contain('refused the credentials');
  });
});
