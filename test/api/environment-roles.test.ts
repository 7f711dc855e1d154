import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, login, userWithRole } from '../support/fixtures.js';
import { createService, expectError, insertServer } from '../support/catalog-fixtures.js';
import { connectMcp, toolJson } from '../support/mcp-client.js';
import { rowCounts } from '../support/row-counts.js';
import type { HttpClient } from '../support/http-client.js';
import { allRoutes } from '../../api/routes/index.js';
import type { RouteSpec } from '../../api/http/route.js';

/**
 * Per-environment roles (DECISIONS.md, Wave 3): `PUT /api/environments/{envId}/members/{userId}
 * {role}`; the user's own role is the ceiling. Sam is an operator, a member of "staging" as
 * operator and of "production" as viewer: Sam writes in staging and only reads in production,
 * through the API, an API token of Sam's and MCP.
 */
describe('per-environment roles', () => {
  let svc: TestService;
  let admin: HttpClient;
  let sam: HttpClient;
  let samId: string;
  let staging: { id: string; name: string };
  let production: { id: string; name: string };
  /** One resource of each kind in an environment, by the path segment its item routes use. */
  const fixtures: Record<string, Record<string, string>> = {};

  async function seed(envId: string): Promise<Record<string, string>> {
    const created = async (path: string, body: unknown) => {
      const res = await admin.post(path, body);
      expect(res.status, `${path} ${res.text}`).to.equal(201);
      return res.body.id as string;
    };
    const service = await createService(admin, envId, { name: 'web' });
    const server = (await insertServer(svc, envId, 'web-1')).id;
    const deployment = await created(`/api/services/${service.id}/deployments`, { serverId: server, containerName: 'web-1' });
    const entity = await created(`/api/environments/${envId}/external-entities`, { name: 'stripe', type: 'saas' });
    const configFile = await created(`/api/environments/${envId}/config-files`, { name: 'app.conf', content: 'a=1\n' });
    return {
      services: service.id, depId: deployment, servers: server,
      'container-images': (await admin.get(`/api/services/${service.id}`)).body.containerImageId,
      secrets: await created(`/api/environments/${envId}/secrets`, { key: 'DB_PASSWORD', value: 'never-shown-1' }),
      vars: await created(`/api/environments/${envId}/vars`, { key: 'PORT', value: '8080' }),
      'config-files': configFile,
      'config-fragments': await created(`/api/environments/${envId}/config-fragments`, { name: 'common', content: 'x=1\n' }),
      'external-entities': entity,
      'server-clusters': await created(`/api/environments/${envId}/server-clusters`, { name: 'front', serverIds: [server] }),
      connections: await created('/api/connections', { environmentId: envId, from: { kind: 'Service', id: service.id }, to: { kind: 'ExternalEntity', id: entity }, label: 'pays' }),
      registries: await created(`/api/environments/${envId}/registries`, { name: 'reg', type: 'generic', registryUrl: 'https://r.example.test', token: 'never-shown-2' }),
      'deployment-plans': (await admin.post(`/api/environments/${envId}/deployment-plans`, { items: [{ serviceId: service.id, imageTag: 'v2' }] })).body.id,
    };
  }

  /** A route's path with its parameters taken from one environment's fixtures (undefined: no fixture of that kind). */
  function pathIn(spec: RouteSpec, envId: string, ids: Record<string, string>): string | undefined {
    const kind = /^\/api\/([a-z-]+)\/\{id\}/.exec(spec.path)?.[1];
    let missing = false;
    const path = spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      if (name === 'envId' || (name === 'id' && kind === 'environments')) return envId;
      if (name === 'id' && kind && ids[kind]) return ids[kind];
      if (name === 'depId') return ids.depId;
      if (name === 'userId') return samId;
      if (name === 'revision') return '1';
      if (name === 'module') return 'general';
      missing = true;
      return '';
    });
    return missing ? undefined : path;
  }

  before(async function () {
    this.timeout(60_000);
    svc = await startTestService({ MCP_ENABLED: 'true' });
    admin = await bootstrapAdmin(svc.http);
    staging = await createEnvironment(admin, 'staging');
    production = await createEnvironment(admin, 'production');
    const made = await userWithRole(admin, 'operator', 'sam@example.test');
    sam = made.client;
    samId = made.user.id;
    fixtures.staging = await seed(staging.id);
    fixtures.production = await seed(production.id);
    expect((await admin.put(`/api/environments/${staging.id}/members/${samId}`, { role: 'operator' })).status).to.equal(200);
    expect((await admin.put(`/api/environments/${production.id}/members/${samId}`, { role: 'viewer' })).status).to.equal(200);
  });
  after(() => svc?.stop());

  it('members: an admin sets, lists and removes a role; bad input is refused and changes nothing', async () => {
    const other = (await userWithRole(admin, 'viewer')).user;
    const put = await admin.put(`/api/environments/${staging.id}/members/${other.id}`, { role: 'admin' });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({ environmentId: staging.id, userId: other.id, email: other.email, role: 'admin', globalRole: 'viewer' });
    const list = (await admin.get(`/api/environments/${staging.id}/members`)).body;
    expect(list.items.map((m: any) => [m.email, m.role])).to.deep.include.members([['sam@example.test', 'operator'], [other.email, 'admin']]);
    // the global role is the ceiling: an admin membership leaves a viewer a viewer there
    const otherClient = await login(svc.http, other.email);
    expect((await otherClient.get('/api/auth/me')).body.environments.find((e: any) => e.id === staging.id).role).to.equal('viewer');
    expectError(await otherClient.post(`/api/environments/${staging.id}/vars`, { key: 'NOPE', value: '1' }), 403, 'FORBIDDEN_ROLE');

    expectError(await admin.put(`/api/environments/${staging.id}/members/${other.id}`, { role: 'owner' }), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/environments/${staging.id}/members/${other.id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin.put(`/api/environments/${staging.id}/members/${crypto.randomUUID()}`, { role: 'viewer' }), 404, 'NOT_FOUND');
    expectError(await admin.put(`/api/environments/${crypto.randomUUID()}/members/${other.id}`, { role: 'viewer' }), 404, 'NOT_FOUND');
    expectError(await sam.put(`/api/environments/${staging.id}/members/${other.id}`, { role: 'viewer' }), 403, 'FORBIDDEN_ROLE');
    expectError(await sam.get(`/api/environments/${staging.id}/members`), 403, 'FORBIDDEN_ROLE');
    expect((await admin.get(`/api/environments/${staging.id}/members`)).body.items.find((m: any) => m.userId === other.id).role).to.equal('admin');

    expect((await admin.delete(`/api/environments/${staging.id}/members/${other.id}`)).status).to.equal(204);
    expectError(await admin.delete(`/api/environments/${staging.id}/members/${other.id}`), 404, 'NOT_FOUND');
    expect((await admin.get(`/api/environments/${staging.id}/members`)).body.items.map((m: any) => m.userId)).to.not.include(other.id);
  });

  it('/api/auth/me gives the caller\'s role in each environment', async () => {
    const me = (await sam.get('/api/auth/me')).body;
    expect(me.role).to.equal('operator');
    expect(me.environments).to.deep.include.members([
      { id: staging.id, name: 'staging', role: 'operator' },
      { id: production.id, name: 'production', role: 'viewer' },
    ]);
  });

  it('an operator of staging who is a viewer of production writes in staging and cannot write in production', async () => {
    const prod = fixtures.production;
    const before = await rowCounts(svc.services.db);
    expectError(await sam.post(`/api/environments/${production.id}/vars`, { key: 'NEW', value: '1' }), 403, 'FORBIDDEN_ROLE');
    const refused = await sam.patch(`/api/services/${prod.services}`, { imageTag: '9.9' });
    expectError(refused, 403, 'FORBIDDEN_ROLE');
    expect(refused.body.message).to.match(/operator role in this environment; yours there is viewer/);
    expectError(await sam.post(`/api/services/${prod.services}/deploy`, { imageTag: '9.9' }), 403, 'FORBIDDEN_ROLE');
    expectError(await sam.delete(`/api/secrets/${prod.secrets}`), 403, 'FORBIDDEN_ROLE');
    expectError(await sam.patch(`/api/services/${prod.services}/deployments/${prod.depId}`, { containerName: 'x' }), 403, 'FORBIDDEN_ROLE');
    // the environment named in the body: a connection, a sync batch
    expectError(await sam.post('/api/connections', { environmentId: production.id, from: { kind: 'Service', id: prod.services }, to: { kind: 'ExternalEntity', id: prod['external-entities'] } }), 403, 'FORBIDDEN_ROLE');
    expectError(await sam.post('/api/sync/batch', { operations: [{ configFileId: prod['config-files'] }] }), 403, 'FORBIDDEN_ROLE');
    // reads stay open
    expect((await sam.get(`/api/services/${prod.services}`)).status).to.equal(200);
    expect(await rowCounts(svc.services.db)).to.deep.equal(before);
    expect((await admin.get(`/api/services/${prod.services}`)).body.imageTag).to.equal('1.0');

    const st = fixtures.staging;
    const patched = await sam.patch(`/api/services/${st.services}`, { imageTag: '1.1' });
    expect(patched.status, patched.text).to.equal(200);
    expect((await admin.get(`/api/services/${st.services}`)).body.imageTag).to.equal('1.1');
    expect((await sam.post(`/api/environments/${staging.id}/vars`, { key: 'NEW', value: '1' })).status).to.equal(201);
  });

  it('every operator and admin route with a production resource refuses Sam before it acts', async function () {
    this.timeout(60_000);
    const specs = allRoutes(svc.services).filter((s) => (s.access === 'operator' || s.access === 'admin') && /\{/.test(s.path));
    // Sam as an admin capped to viewer in production: admin routes reach the environment check too
    await admin.patch(`/api/users/${samId}`, { role: 'admin' });
    const samAdmin = await login(svc.http, 'sam@example.test');
    try {
      const before = await rowCounts(svc.services.db);
      const covered = new Set<string>();
      const failures: string[] = [];
      for (const spec of specs) {
        const path = pathIn(spec, production.id, fixtures.production);
        if (!path) continue;
        // no revision without a rollout (which needs a real server): the revert route answers
        // 404 for one that does not exist, as to anyone who may read the service's revisions
        if (spec.path.endsWith('/revert')) continue;
        const res = await samAdmin.request(spec.method, path);
        // an environment setting module path may 404 before the check; anything else must be refused by role
        // (memberships and register-host act on the whole installation: an unrestricted admin's, policy.ts)
        if (res.status === 403 && res.body.code === 'FORBIDDEN_ROLE' && /in this environment|unrestricted admin/.test(res.body.message)) covered.add(spec.path.split('/')[2]);
        else failures.push(`${spec.method} ${spec.path}: ${res.status} ${res.text.slice(0, 160)}`);
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
      expect([...covered]).to.include.members(['environments', 'services', 'servers', 'secrets', 'vars', 'registries', 'config-files',
        'config-fragments', 'container-images', 'deployment-plans', 'connections', 'external-entities', 'server-clusters']);
      expect(await rowCounts(svc.services.db), 'nothing changed').to.deep.equal(before);
    } finally {
      // a role change ends the user's sessions: Sam signs in again
      await admin.patch(`/api/users/${samId}`, { role: 'operator' });
      sam = await login(svc.http, 'sam@example.test');
    }
  });

  it('an API token of Sam\'s carries the same roles', async () => {
    const token = await apiToken(admin, samId);
    expectError(await token.patch(`/api/services/${fixtures.production.services}`, { imageTag: '9.9' }), 403, 'FORBIDDEN_ROLE');
    expect((await token.patch(`/api/services/${fixtures.staging.services}`, { imageTag: '1.2' })).status).to.equal(200);
  });

  it('MCP: a tool that acts in production is refused, the same in staging works', async () => {
    const mcp = await connectMcp(sam.baseUrl, sam.token);
    try {
      const sync = (configFileId: string) => mcp.callTool({ name: 'execute_sync_batch', arguments: { operations: [{ configFileId }] } });
      const refused = await sync(fixtures.production['config-files']);
      expect(refused.isError, JSON.stringify(refused)).to.equal(true);
      expect(JSON.stringify(refused.content), JSON.stringify(refused.content)).to.match(/FORBIDDEN_ROLE/);
      const done = await sync(fixtures.staging['config-files']);
      expect(done.isError, JSON.stringify(done)).to.equal(undefined);
      expect(toolJson(done)).to.include({ environmentId: staging.id });
    } finally {
      await mcp.close();
    }
  });

  it('manifests: an admin who is a viewer of production applies to staging, and nothing to production', async () => {
    await admin.patch(`/api/users/${samId}`, { role: 'admin' });
    await admin.put(`/api/environments/${staging.id}/members/${samId}`, { role: 'admin' });
    const samAdmin = await login(svc.http, 'sam@example.test');
    try {
      const doc = (env: string) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: FROM_GIT, environment: ${env}}\nspec: {value: "1"}\n`;
      const refused = await samAdmin.post('/api/manifests/apply', { files: [{ path: 'p.yaml', content: doc('production') }] });
      expectError(refused, 403, 'FORBIDDEN_ROLE');
      expect((await admin.get(`/api/environments/${production.id}/vars?limit=200`)).body.items.map((v: any) => v.key)).to.not.include('FROM_GIT');
      const applied = await samAdmin.post('/api/manifests/apply', { files: [{ path: 's.yaml', content: doc('staging') }] });
      expect(applied.status, applied.text).to.equal(200);
      expect((await admin.get(`/api/environments/${staging.id}/vars?limit=200`)).body.items.map((v: any) => v.key)).to.include('FROM_GIT');
      // an operator membership in staging is not enough for an apply (an admin operation)
      await admin.put(`/api/environments/${staging.id}/members/${samId}`, { role: 'operator' });
      const again = await samAdmin.post('/api/manifests/apply', { files: [{ path: 's.yaml', content: doc('staging').replace('"1"', '"2"') }] });
      expectError(again, 403, 'FORBIDDEN_ROLE');
    } finally {
      await admin.put(`/api/environments/${staging.id}/members/${samId}`, { role: 'operator' });
      // a role change ends the user's sessions: Sam signs in again
      await admin.patch(`/api/users/${samId}`, { role: 'operator' });
      sam = await login(svc.http, 'sam@example.test');
    }
  });

  it('removing the membership gives Sam the global role in production again, at once', async () => {
    const other = await userWithRole(admin, 'operator');
    await admin.put(`/api/environments/${production.id}/members/${other.user.id}`, { role: 'viewer' });
    expectError(await other.client.post(`/api/environments/${production.id}/vars`, { key: 'LATER', value: '1' }), 403, 'FORBIDDEN_ROLE');
    expect((await admin.delete(`/api/environments/${production.id}/members/${other.user.id}`)).status).to.equal(204);
    expect((await other.client.post(`/api/environments/${production.id}/vars`, { key: 'LATER', value: '1' })).status).to.equal(201);
  });
});
