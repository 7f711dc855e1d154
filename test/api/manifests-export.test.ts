// GET /api/environments/{envId}/manifests/export: the environment as manifests (secrets as SOPS
// placeholders, never values) that diff as "no change" against the store; roles and errors.
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { SOPS_PLACEHOLDER } from '../../controller/manifests/export.js';

const TOKEN_VALUE = 'api-token-value-9c41e7';

describe('manifests export route', function () {
  this.timeout(60_000);
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  const exportOf = (envId: string, query = '') => admin.get(`/api/environments/${envId}/manifests/export${query}`);

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    const doc = (kind: string, name: string, spec: string) => `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}, environment: ${env.name}}\nspec: ${spec}\n`;
    const files = [{
      path: 'app.yaml',
      content: [
        doc('Var', 'GREETING', '{value: hello}'),
        doc('ContainerImage', 'web', '{imageName: "reg.test:5000/acme/web"}'),
        doc('Service', 'web', '{image: web, imageTag: v1, env: {GREETING: "${GREETING}", TOKEN: "${API_TOKEN}"}, ports: ["8080:80"], command: [sh, -c, "sleep 1"]}'),
      ].join('---\n'),
    }];
    const applied = await admin.post('/api/manifests/apply', { files });
    expect(applied.status, applied.text).to.equal(200);
    expect((await admin.post(`/api/environments/${env.id}/secrets`, { key: 'API_TOKEN', value: TOKEN_VALUE })).status).to.equal(201);
  });
  after(async () => svc?.stop());

  it('writes the environment as manifests: a secret as a SOPS placeholder, never its value', async () => {
    const res = await exportOf(env.id);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(res.text).to.not.include(TOKEN_VALUE);
    const docs = parseAllDocuments(res.text).map((d) => d.toJS());
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).to.deep.equal(['ContainerImage/web', 'Secret/API_TOKEN', 'Service/web', 'Var/GREETING']);
    expect(docs.find((d) => d.kind === 'Secret').spec).to.deep.equal({ value: SOPS_PLACEHOLDER });
    expect(docs.find((d) => d.kind === 'Service').spec).to.deep.include({ image: 'web', imageTag: 'v1', ports: ['8080:80'], command: ['sh', '-c', 'sleep 1'] });
    for (const d of docs) expect(d.metadata.environment).to.equal(env.name);
  });

  it('what it writes (but the secret placeholder) diffs as no field change against the store', async () => {
    const text = (await exportOf(env.id)).text;
    const kept = parseAllDocuments(text).filter((d) => d.toJS().kind !== 'Secret').map((d) => d.toString()).join('---\n');
    const diff = await admin.post('/api/manifests/diff', { files: [{ path: 'export.yaml', content: kept }] });
    expect(diff.status, diff.text).to.equal(200);
    expect(diff.body.ok, JSON.stringify(diff.body.errors)).to.equal(true);
    // only the file the objects are written in changes (export.yaml for app.yaml), no field
    expect(diff.body.changes.filter((c: { sourceOnly?: boolean; fields: string[] }) => !c.sourceOnly || c.fields.length)).to.deep.equal([]);
    expect(diff.body.changes).to.have.length(3);
  });

  it('applies restartPolicy from a manifest ("no" unquoted too), writes it back on export, and refuses a bad one naming it', async () => {
    const own = await createEnvironment(admin);
    const doc = (kind: string, name: string, spec: string) => `apiVersion: stevedore/v1\nkind: ${kind}\nmetadata: {name: ${name}, environment: ${own.name}}\nspec:\n${spec}\n`;
    const folder = (policies: Record<string, string | null>) => [{
      path: 'app.yaml',
      content: [doc('ContainerImage', 'web', '  imageName: "reg.test:5000/acme/web"'), ...Object.entries(policies).map(([name, policy]) =>
        doc('Service', name, `  image: web\n  imageTag: v1\n${policy === null ? '' : `  restartPolicy: ${policy}\n`}`))].join('---\n'),
    }];
    const policies = { plain: null, never: 'no', retrying: 'on-failure:3', always: '"always"' };
    const applied = await admin.post('/api/manifests/apply', { files: folder(policies) });
    expect(applied.status, applied.text).to.equal(200);
    const stored = Object.fromEntries((await svc.services.db('services').where({ environmentId: own.id }).select('name', 'restartPolicy')).map((r) => [r.name, r.restartPolicy]));
    expect(stored).to.deep.equal({ plain: 'unless-stopped', never: 'no', retrying: 'on-failure:3', always: 'always' });
    const listed = (await admin.get(`/api/environments/${own.id}/services`)).body.items;
    expect(Object.fromEntries(listed.map((x: { name: string; restartPolicy: string }) => [x.name, x.restartPolicy]))).to.deep.equal(stored);
    // what the export writes reads back as no field change
    const text = (await exportOf(own.id)).text;
    const specs = Object.fromEntries(parseAllDocuments(text).map((d) => d.toJS()).filter((d) => d.kind === 'Service').map((d) => [d.metadata.name, d.spec.restartPolicy]));
    expect(specs).to.deep.equal({ plain: 'unless-stopped', never: 'no', retrying: 'on-failure:3', always: 'always' });
    const again = await admin.post('/api/manifests/diff', { files: [{ path: 'app.yaml', content: text }] });
    expect(again.body.ok, JSON.stringify(again.body.errors)).to.equal(true);
    expect(again.body.changes.filter((c: { fields: string[] }) => c.fields.length)).to.deep.equal([]);
    // a field the manifest sets is the manifest's: the API may not change it
    const retrying = listed.find((x: { name: string }) => x.name === 'retrying');
    const owned = await admin.patch(`/api/services/${retrying.id}`, { restartPolicy: 'always' });
    expect(owned.status, owned.text).to.equal(409);
    for (const bad of ['sometimes', 'on-failure:0', '3']) {
      const refused = await admin.post('/api/manifests/apply', { files: folder({ ...policies, retrying: bad }) });
      expect(refused.status, refused.text).to.equal(400);
      expect(refused.body.code).to.equal('VALIDATION_ERROR');
      expect(refused.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['spec/restartPolicy']);
    }
    expect((await svc.services.db('services').where({ environmentId: own.id, name: 'retrying' }).first()).restartPolicy).to.equal('on-failure:3');
  });

  it('a secret placeholder left as it is is refused, not applied', async () => {
    const text = (await exportOf(env.id)).text;
    const secret = parseAllDocuments(text).find((d) => d.toJS().kind === 'Secret')!.toString();
    const res = await admin.post('/api/manifests/apply', { files: [{ path: 'API_TOKEN.yaml', content: secret }] });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('VALIDATION_ERROR');
  });

  it('is for admins only: 401 without a session, 403 for operators and viewers', async () => {
    const operator = (await userWithRole(admin, 'operator')).client;
    const viewer = (await userWithRole(admin, 'viewer')).client;
    const anonymous = await svc.http.get(`/api/environments/${env.id}/manifests/export`);
    expect(anonymous.status).to.equal(401);
    for (const c of [operator, viewer]) {
      const r = await c.get(`/api/environments/${env.id}/manifests/export`);
      expect(r.status).to.equal(403);
      expect(r.body.code).to.equal('FORBIDDEN_ROLE');
      expect(r.text).to.not.include('GREETING');
    }
  });

  it('answers 404 for an unknown environment or server (one of another environment too), 400 for a malformed serverId', async () => {
    const unknown = await exportOf('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('NOT_FOUND');
    expect((await exportOf(env.id, '?serverId=00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    const other = await createEnvironment(admin);
    const server = await admin.post(`/api/environments/${other.id}/servers`, { name: 'elsewhere', hostname: '127.0.0.1', sshPort: 1 });
    expect(server.status, server.text).to.equal(201);
    const foreign = await exportOf(env.id, `?serverId=${server.body.id}`);
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.include({ code: 'NOT_FOUND' });
    const bad = await exportOf(env.id, '?serverId=not-a-uuid');
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'VALIDATION_ERROR' });
  });
});
