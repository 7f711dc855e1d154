import crypto from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import { newSshKeyPair } from '../support/ssh-key.js';

const SECRET = 'ci-shared-secret';
const CODEHOST_SECRET = 'codehost-shared-secret';
const hex = (secret: string, body: string) => crypto.createHmac('sha256', secret).update(body).digest('hex');

/** POSTs exact bytes with the given signature header (undefined: no header). */
async function send(svc: TestService, path: string, body: string, header: string, value: string | undefined, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (value !== undefined) headers[header] = value;
  return svc.http.post(path, undefined, { raw: body, headers });
}

describe('incoming webhooks', () => {
  let svc: TestService;
  let unset: TestService;
  let env: { id: string; name: string };
  let imageId: string;
  let manualImageId: string;

  before(async () => {
    svc = await startTestService({ WEBHOOK_SECRET: SECRET, CODEHOST_WEBHOOK_SECRET: CODEHOST_SECRET });
    unset = await startTestService();
    const admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin, 'prod-hooks');
    const db = svc.services.db;
    [{ id: imageId }] = await db('container_images').insert({ environmentId: env.id, imageName: 'registry.local:5000/acme/api', autoUpdate: true }).returning('id');
    [{ id: manualImageId }] = await db('container_images').insert({ environmentId: env.id, imageName: 'registry.local:5000/acme/manual', autoUpdate: false }).returning('id');
    await db('container_images').insert({ environmentId: env.id, imageName: 'registry.local:5000/acme/orphan', autoUpdate: true });
    await db('services').insert([
      { environmentId: env.id, name: 'api', containerImageId: imageId, imageTag: '1.0.0' },
      { environmentId: env.id, name: 'manual', containerImageId: manualImageId, imageTag: '1.0.0' },
    ]);
  });
  after(async () => {
    await svc.stop();
    await unset.stop();
  });

  const endpoints = [
    { path: '/api/webhooks/deploy', header: 'x-webhook-signature', prefix: '', secret: SECRET,
      body: JSON.stringify({ service: 'nope', environment: 'prod-hooks' }), correct: 404 },
    { path: '/api/webhooks/deploy-image', header: 'x-webhook-signature', prefix: '', secret: SECRET,
      body: JSON.stringify({ imageName: 'registry.local:5000/acme/manual', environment: 'prod-hooks', imageTag: '2.0.0' }), correct: 400 },
    { path: '/api/webhooks/codehost', header: 'x-hub-signature-256', prefix: 'sha256=', secret: CODEHOST_SECRET,
      body: JSON.stringify({ zen: 'hello' }), correct: 200, extra: { 'x-github-event': 'ping' } },
  ];

  for (const ep of endpoints) {
    it(`${ep.path} answers the signature matrix: only the exact ${ep.prefix ? 'sha256=' : ''}lowercase hex digest of the raw body passes`, async () => {
      const good = ep.prefix + hex(ep.secret, ep.body);
      const cases: Array<[string, TestService, string | undefined, number]> = [
        ['secret unset', unset, good, 401],
        ['header missing', svc, undefined, 401],
        ['wrong digest', svc, ep.prefix + hex('another-secret', ep.body), 401],
        ['digest of a different body', svc, ep.prefix + hex(ep.secret, ep.body + ' '), 401],
        ['uppercase hex', svc, ep.prefix + hex(ep.secret, ep.body).toUpperCase(), 401],
        // the right digest in the other endpoint's form: without sha256= on the code host, with it on the CI hooks
        [ep.prefix ? 'digest without sha256=' : 'digest with sha256=', svc, ep.prefix ? hex(ep.secret, ep.body) : 'sha256=' + hex(ep.secret, ep.body), 401],
        ['digest with a character more', svc, good + '0', 401],
        ['digest with a character less', svc, good.slice(0, -1), 401],
        ['garbage', svc, 'sha256=', 401],
        ['correct', svc, good, ep.correct],
      ];
      for (const [name, target, sig, status] of cases) {
        const res = await send(target, ep.path, ep.body, ep.header, sig, ep.extra);
        expect(res.status, `${name}: ${res.text}`).to.equal(status);
        if (status === 401) expect(res.body.code, name).to.equal('UNAUTHORIZED');
      }
      // The digest is over the bytes: the same JSON re-serialised differently does not verify.
      const spaced = JSON.stringify(JSON.parse(ep.body), null, 2);
      expect((await send(svc, ep.path, spaced, ep.header, good, ep.extra)).status).to.equal(401);
    });
  }

  it('a signed body without a content type, or of one the hook does not read, is 415 after the signature check', async () => {
    for (const ep of endpoints) {
      const good = ep.prefix + hex(ep.secret, ep.body);
      const untyped = (signature: string) => svc.http.request('POST', ep.path, undefined,
        { raw: ep.body, noContentType: true, headers: { [ep.header]: signature, ...ep.extra } });
      const res = await untyped(good);
      expect(res.status, `${ep.path}: ${res.text}`).to.equal(415);
      expect(res.body, ep.path).to.include({ code: 'VALIDATION_ERROR', field: 'Content-Type' });
      const text = await send(svc, ep.path, ep.body, ep.header, good, { ...ep.extra, 'content-type': 'text/plain' });
      expect(text.status, `${ep.path} text/plain: ${text.text}`).to.equal(415);
      // the signature first: an unsigned caller learns nothing about the body
      expect((await untyped(ep.prefix + hex('another-secret', ep.body))).status, ep.path).to.equal(401);
      // the same bytes as JSON are what the matrix expects
      expect((await send(svc, ep.path, ep.body, ep.header, good, ep.extra)).status, ep.path).to.equal(ep.correct);
    }
  });

  it('deploy looks up the environment by exact name and the service by name or id, answering 404 with the spec messages', async () => {
    const post = (payload: unknown) => {
      const body = JSON.stringify(payload);
      return send(svc, '/api/webhooks/deploy', body, 'x-webhook-signature', hex(SECRET, body));
    };
    const noEnv = await post({ service: 'api', environment: 'PROD-HOOKS' });
    expect(noEnv.status).to.equal(404);
    expect(noEnv.body).to.include({ code: 'NOT_FOUND', message: 'Environment not found', error: 'Environment not found' });
    const noSvc = await post({ service: 'web', environment: 'prod-hooks' });
    expect(noSvc.body).to.include({ message: 'Service not found', error: 'Service not found' });
    const missing = await post({ environment: 'prod-hooks' });
    expect(missing.status).to.equal(400);
    expect(missing.body).to.include({ code: 'VALIDATION_ERROR', field: 'service' });
    const badTag = await post({ service: 'api', environment: 'prod-hooks', imageTag: 'a b' });
    expect(badTag.body).to.include({ field: 'imageTag' });
  });

  it('deploy whose deploy ran and failed answers 502 with {error}, not 500', async () => {
    // A placement on a server nobody listens for: the plan runs, the step fails, the plan fails.
    const s = svc.services;
    await s.db('environments').where({ id: env.id }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const server = await s.servers.insert({ environmentId: env.id, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    const failing = await s.services.create(env.id, { name: 'failing', containerImageId: imageId, imageTag: '1.0.0' });
    await s.deployments.create(failing.id, env.id, { serverId: server.id, containerName: 'failing-1' });
    const body = JSON.stringify({ service: 'failing', environment: 'prod-hooks', imageTag: '2.0.0' });
    const res = await send(svc, '/api/webhooks/deploy', body, 'x-webhook-signature', hex(SECRET, body));
    expect(res.status, res.text).to.equal(502);
    expect(res.body.error).to.be.a('string').and.match(/^The deploy /);
    expect(res.body).to.not.have.property('code');
    const plan = await svc.services.db('deployment_plans').where({ id: res.body.deploymentId }).first();
    expect(plan.status).to.equal(res.body.status).and.not.equal('succeeded');
  });

  it('deploy-image checks its three preconditions: image exists, autoUpdate on (400 with a hint), a linked service', async () => {
    const post = (payload: unknown) => {
      const body = JSON.stringify(payload);
      return send(svc, '/api/webhooks/deploy-image', body, 'x-webhook-signature', hex(SECRET, body));
    };
    const unknown = await post({ imageName: 'registry.local:5000/acme/other', environment: 'prod-hooks', imageTag: '2' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error).to.equal('Container image not found');
    expect((await post({ imageName: 'registry.local:5000/acme/api', environment: 'nope', imageTag: '2' })).body.message).to.equal('Environment not found');
    const manual = await post({ imageName: 'registry.local:5000/acme/manual', environment: 'prod-hooks', imageTag: '2' });
    expect(manual.status).to.equal(400);
    expect(manual.body).to.include({ code: 'VALIDATION_ERROR', field: 'imageName' });
    expect(manual.body.hint).to.match(/autoUpdate/);
    const orphan = await post({ imageName: 'registry.local:5000/acme/orphan', environment: 'prod-hooks', imageTag: '2' });
    expect(orphan.status).to.equal(400);
    expect(orphan.body.message).to.match(/No service uses this image/);
    const noTag = await post({ imageName: 'registry.local:5000/acme/api', environment: 'prod-hooks' });
    expect(noTag.body).to.include({ code: 'VALIDATION_ERROR', field: 'imageTag' });
  });

  it('codehost reacts only to the package event with action published', async () => {
    const post = (event: string, payload: unknown) => {
      const body = JSON.stringify(payload);
      return send(svc, '/api/webhooks/codehost', body, 'x-hub-signature-256', 'sha256=' + hex(CODEHOST_SECRET, body), { 'x-github-event': event });
    };
    const push = await post('push', { ref: 'refs/heads/main' });
    expect(push.status).to.equal(200);
    expect(push.body).to.include({ ignored: true, serviceCount: 0 });
    const updated = await post('package', { action: 'updated', package: { name: 'api', package_version: { version: '2.0.0' } } });
    expect(updated.body).to.include({ ignored: true });
    const unrelated = await post('package', { action: 'published', package: { name: 'zzz-not-used', package_version: { version: '2.0.0' } } });
    expect(unrelated.body).to.include({ ignored: true, serviceCount: 0 });
    // A code host may send the payload form-encoded; the signature is over those bytes.
    const form = 'payload=' + encodeURIComponent(JSON.stringify({ action: 'published', package: { name: 'zzz-not-used', package_version: { version: '1' } } }));
    const formRes = await send(svc, '/api/webhooks/codehost', form, 'x-hub-signature-256', 'sha256=' + hex(CODEHOST_SECRET, form),
      { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'package' });
    expect(formRes.status, formRes.text).to.equal(200);
    expect(formRes.body).to.include({ ignored: true, reason: 'no service uses this package' });
    const noName = await post('package', { action: 'published', package: { package_version: { version: '2.0.0' } } });
    expect(noName.body).to.include({ code: 'VALIDATION_ERROR', field: 'package.name' });
  });

  it('codehost deploys only what the update check calls newer: policy, re-push of the current tag, failed version held (409)', async () => {
    const D1 = `sha256:${'1'.repeat(64)}`;
    const D2 = `sha256:${'2'.repeat(64)}`;
    const db = svc.services.db;
    const [{ id: hookedId }] = await db('container_images').insert({
      environmentId: env.id, imageName: 'registry.local:5000/acme/hooked', autoUpdate: true,
      policy: JSON.stringify({ type: 'semver', range: '^1.4' }), failedTag: '1.4.1', failedDigest: D1,
    }).returning('id');
    // a deployment on a server nobody listens on: a plan can be built (it fails later, off the request)
    const s = svc.services;
    await db('environments').where({ id: env.id }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const server = await s.servers.insert({ environmentId: env.id, name: 'nowhere-hooked', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    const hooked = await s.services.create(env.id, { name: 'hooked', containerImageId: hookedId, imageTag: '1.4.0' });
    await s.deployments.create(hooked.id, env.id, { serverId: server.id, containerName: 'hooked-1' });
    const publish = (tag: string, digest?: string) => {
      const body = JSON.stringify({ action: 'published', package: { name: 'hooked', package_version: { version: digest ?? tag, container_metadata: { tag: { name: tag, digest } } } } });
      return send(svc, '/api/webhooks/codehost', body, 'x-hub-signature-256', 'sha256=' + hex(CODEHOST_SECRET, body), { 'x-github-event': 'package' });
    };
    const plansNamed = async (tag: string) => (await db('deployment_plans').where({ name: `codehost: hooked:${tag}` })).length;

    for (const tag of ['1.3.9', '2.0.0', '1.5.0-rc.1', 'latest']) {
      const res = await publish(tag);
      expect(res.status, `${tag}: ${res.text}`).to.equal(200);
      expect(res.body).to.include({ ignored: true, serviceCount: 0 });
      expect(res.body.reason, tag).to.contain(`hooked:${tag} is not newer than 1.4.0`);
      expect(res.body.skipped).to.deep.equal([{ service: 'hooked', environment: 'prod-hooks', reason: res.body.reason }]);
      expect(await plansNamed(tag), tag).to.equal(0);
    }
    const held = await publish('1.4.1', D1);
    expect(held.status, held.text).to.equal(409);
    expect(held.body).to.include({ code: 'CONFLICT' });
    expect(held.body.message).to.contain('1.4.1 failed and was rolled back');
    expect(await plansNamed('1.4.1')).to.equal(0);

    const repushed = await publish('1.4.0', D2); // the running tag re-pushed: followed by digest, as the update check does
    expect(repushed.status, repushed.text).to.equal(202);
    expect(await plansNamed('1.4.0')).to.equal(1);

    const rebuilt = await publish('1.4.1', D2); // a new digest of the failed tag is a new version
    expect(rebuilt.status, rebuilt.text).to.equal(202);
    expect(rebuilt.body).to.include({ ignored: false, serviceCount: 1 });
    expect(rebuilt.body.plans.map((p: { services: string[] }) => p.services)).to.deep.equal([['hooked']]);
    expect(await plansNamed('1.4.1')).to.equal(1);
  });
});
