// Registry browsing, update checks and image routes against a real docker-registry on loopback
// (test/support/local-registry.ts pushes manifests through the registry API).
import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createService, expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { startLocalRegistry, type LocalRegistry } from '../support/local-registry.js';

describe('image update routes', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let envId: string;
  let reg: LocalRegistry;
  let registryId: string;

  before(async function () {
    this.timeout(180_000); // starting the service on a fresh database; slow on a busy machine
    [{ svc, admin, operator, viewer, envId }, reg] = await Promise.all([startWithRoles(), startLocalRegistry()]);
    const created = await operator.post(`/api/environments/${envId}/registries`, { name: 'local', type: 'generic', registryUrl: reg.url });
    registryId = created.body.id;
  });
  after(async () => {
    await svc?.stop();
    await reg?.stop();
  });

  const image = async (repo: string, extra: Record<string, unknown> = {}) => {
    const res = await operator.post(`/api/environments/${envId}/container-images`, { imageName: `${reg.host}/${repo}`, registryConnectionId: registryId, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.body as { id: string };
  };

  it('registry test gives a verdict; browsing lists repositories and semver-sorted tags; admin only', async () => {
    for (const t of ['1.2.0', '1.10.0', '1.9.1', 'latest', '2.0.0-rc.1']) await reg.push('acme/browse', t);
    const test = await admin.post(`/api/registries/${registryId}/test`, {});
    expect(test.status, test.text).to.equal(200);
    expect(test.body).to.include({ ok: true, reachable: true, authenticated: true });
    expect(test.body.repositoryCount).to.be.at.least(1);
    const repos = await admin.get(`/api/registries/${registryId}/repositories`);
    expect(repos.body.items).to.include('acme/browse');
    const tags = await admin.get(`/api/registries/${registryId}/tags?repository=acme/browse`);
    expect(tags.body.items).to.deep.equal(['2.0.0-rc.1', '1.10.0', '1.9.1', '1.2.0', 'latest']);
    expectError(await operator.post(`/api/registries/${registryId}/test`, {}), 403, 'FORBIDDEN_ROLE');
    expectError(await viewer.get(`/api/registries/${registryId}/tags?repository=acme/browse`), 403, 'FORBIDDEN_ROLE');
    expectError(await admin.get(`/api/registries/${registryId}/tags?repository=acme/none`), 404, 'NOT_FOUND');
  });

  it('registry test says unreachable without failing the request; image routes answer 503 with the reason', async () => {
    const dead = await operator.post(`/api/environments/${envId}/registries`, { name: 'dead', type: 'generic', registryUrl: 'http://127.0.0.1:1' });
    const test = await admin.post(`/api/registries/${dead.body.id}/test`, {});
    expect(test.body).to.include({ ok: false, reachable: false, authenticated: false });
    expect(test.body.message).to.contain('unreachable');
    const img = await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'acme/dead', registryConnectionId: dead.body.id });
    const check = await operator.post(`/api/container-images/${img.body.id}/check-updates`, {});
    expectError(check, 503, 'SERVICE_UNAVAILABLE');
    const got = await viewer.get(`/api/container-images/${img.body.id}`);
    expect(got.body.status.conditions[0]).to.include({ type: 'UpdateAvailable', status: 'Unknown', reason: 'CheckFailed' });
  });

  it('check-updates finds a newer tag by policy and a re-pushed tag by digest; digests and history fill', async () => {
    await reg.push('acme/check', '1.4.0');
    await reg.push('acme/check', '1.4.1');
    await reg.push('acme/check', '2.0.0');
    const img = await image('acme/check', { policy: { type: 'semver', range: '^1.4' } });
    const s1 = await createService(operator, envId, { name: 'check-svc', containerImageId: img.id, imageTag: '1.4.0' });
    const first = await operator.post(`/api/container-images/${img.id}/check-updates`, {});
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ currentTag: '1.4.0', latestTag: '1.4.1', updateAvailable: true });
    expect(first.body.newTags).to.deep.equal(['1.4.1']);
    expect(first.body.changedDigests).to.deep.equal([]);
    const detail = await viewer.get(`/api/container-images/${img.id}`);
    expect(detail.body.latestTag).to.equal('1.4.1');
    expect(detail.body.status.conditions[0]).to.include({ type: 'UpdateAvailable', status: 'True', reason: 'NewerTag' });
    expect(detail.body.digests.map((d: { tag: string }) => d.tag)).to.have.members(['1.4.0', '1.4.1']);

    const repushed = await reg.push('acme/check', '1.4.0', 'rebuilt');
    const second = await operator.post(`/api/container-images/${img.id}/check-updates`, {});
    expect(second.body.changedDigests).to.have.length(1);
    expect(second.body.changedDigests[0]).to.include({ tag: '1.4.0', digest: repushed });
    const history = await viewer.get(`/api/container-images/${img.id}/history`);
    expect(history.body.items[0]).to.include({ tag: '1.4.0', digest: repushed });
    const one = await viewer.get(`/api/container-images/${img.id}/digests/${history.body.items[0].id}`);
    expect(one.body.digest).to.equal(repushed);
    expectError(await viewer.get(`/api/container-images/${img.id}/digests/00000000-0000-4000-8000-000000000000`), 404, 'NOT_FOUND');

    const tags = await viewer.get(`/api/services/${s1.id}/image-tags`);
    expect(tags.body.tags.filter((t: { newer: boolean }) => t.newer).map((t: { tag: string }) => t.tag)).to.deep.equal(['1.4.1']);
    const svcCheck = await operator.post(`/api/services/${s1.id}/check-updates`, {});
    expect(svcCheck.body).to.include({ serviceTag: '1.4.0', updateAvailable: true });
    expect(svcCheck.body.newerTags).to.deep.equal(['1.4.1']);
    expectError(await viewer.post(`/api/container-images/${img.id}/check-updates`, {}), 403, 'FORBIDDEN_ROLE');
    const events = await svc.services.db('events').where({ type: 'image.update_available' }).whereRaw("data->>'containerImageId' = ?", [img.id]);
    expect(events.length).to.be.at.least(1);
  });

  it('the registry lists its services and checks all its images; image tags come semver-sorted', async () => {
    await reg.push('acme/all', 'v1');
    await reg.push('acme/all', 'v2');
    const img = await image('acme/all');
    const s1 = await createService(operator, envId, { name: 'all-svc', containerImageId: img.id, imageTag: 'v1' });
    const services = await admin.get(`/api/registries/${registryId}/services`);
    expect(services.body.items.map((x: { id: string }) => x.id)).to.include(s1.id);
    const all = await admin.post(`/api/registries/${registryId}/check-updates`, {});
    expect(all.status, all.text).to.equal(200);
    const mine = all.body.items.find((i: { containerImageId: string }) => i.containerImageId === img.id);
    expect(mine).to.include({ latestTag: 'v2', updateAvailable: true });
    expect((await viewer.get(`/api/container-images/${img.id}/tags`)).body.items).to.deep.equal(['v2', 'v1']);
  });

  it('validates the policy; deploy without linked services is a conflict; re-link candidates share the repository', async () => {
    expectError(await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'acme/bad', policy: { type: 'semver', range: '((' } }), 400, 'VALIDATION_ERROR', 'policy');
    expectError(await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'acme/bad', policy: { type: 'sometimes' } }), 400, 'VALIDATION_ERROR');
    const lonely = await image('acme/lonely');
    expectError(await operator.post(`/api/container-images/${lonely.id}/deploy`, { imageTag: '1.0.0' }), 409, 'CONFLICT');
    const old = await operator.post(`/api/environments/${envId}/container-images`, { imageName: 'old-registry.local:5000/acme/lonely' });
    const moved = await createService(operator, envId, { name: 'still-on-old', containerImageId: old.body.id, imageTag: '1' });
    const candidates = await viewer.get(`/api/container-images/${lonely.id}/relink-candidates`);
    expect(candidates.body.items.map((c: { id: string }) => c.id)).to.deep.equal([moved.id]);
    const linked = await operator.post(`/api/container-images/${lonely.id}/link-service`, { serviceId: moved.id });
    expect(linked.body.services.map((x: { id: string }) => x.id)).to.deep.equal([moved.id]);
    expect((await viewer.get(`/api/container-images/${lonely.id}/relink-candidates`)).body.items).to.deep.equal([]);
  });
});
