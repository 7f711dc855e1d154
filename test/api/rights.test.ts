import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, login, PASSWORD, userWithRole } from '../support/fixtures.js';
import { expectError } from '../support/catalog-fixtures.js';
import { openStream } from '../support/sse-stream.js';
import { until } from '../support/until.js';
import { connectMcp, toolNames } from '../support/mcp-client.js';
import type { HttpClient } from '../support/http-client.js';

/**
 * One rule for rights (issue 34, DECISIONS.md Wave 4): a user's right in an environment is the
 * lower of their own role and their membership there; a user lowered anywhere is not an
 * unrestricted admin, and only an unrestricted admin creates or changes identities and
 * credentials, system settings, memberships and register-host. Lee is a global admin made a
 * viewer of "production" and admin of "staging": Lee must not escape the lowering.
 */
describe('one rule for rights: a lowered admin stays lowered', () => {
  let svc: TestService;
  let admin: HttpClient;
  let adminId: string;
  let lee: HttpClient;
  let leeId: string;
  let staging: { id: string; name: string };
  let production: { id: string; name: string };

  const users = async () => (await admin.get('/api/users?limit=200')).body.items.map((u: any) => `${u.email}:${u.role}`).sort();
  const secrets = async () => (await admin.get(`/api/environments/${production.id}/secrets?limit=200`)).body.items.map((x: any) => x.key);
  const tokens = async () => (await admin.get('/api/admin/tokens?limit=200')).body.total as number;

  before(async function () {
    this.timeout(60_000);
    svc = await startTestService({ MCP_ENABLED: 'true' });
    admin = await bootstrapAdmin(svc.http);
    adminId = (await admin.get('/api/auth/me')).body.id;
    staging = await createEnvironment(admin, 'staging');
    production = await createEnvironment(admin, 'production');
    const made = await userWithRole(admin, 'admin', 'lee@example.test');
    leeId = made.user.id;
    expect((await admin.put(`/api/environments/${production.id}/members/${leeId}`, { role: 'viewer' })).status).to.equal(200);
    expect((await admin.put(`/api/environments/${staging.id}/members/${leeId}`, { role: 'admin' })).status).to.equal(200);
    lee = await login(svc.http, 'lee@example.test');
  });
  after(() => svc?.stop());

  it('cannot write production secrets directly', async () => {
    expectError(await lee.post(`/api/environments/${production.id}/secrets`, { key: 'STOLEN', value: 'x' }), 403, 'FORBIDDEN_ROLE');
  });

  it('cannot mint an API token owned by another admin (and so write production secrets with it)', async () => {
    const before = await tokens();
    const res = await lee.post('/api/admin/tokens', { name: 'mine-now', ownerUserId: adminId });
    // the escape as it was: the other admin's token writes production's secrets
    if (res.body.token) await lee.withToken(res.body.token).post(`/api/environments/${production.id}/secrets`, { key: 'STOLEN', value: 'x' });
    expect(await secrets()).to.not.include('STOLEN');
    expectError(res, 403, 'FORBIDDEN_ROLE');
    expect(res.body.message).to.match(/unrestricted admin/);
    expect(res.body).to.not.have.property('token');
    expect(await tokens()).to.equal(before);
    expect(await secrets()).to.not.include('STOLEN');
  });

  it('cannot create a new admin user (nor any user), and so cannot sign in as one', async () => {
    const before = await users();
    const res = await lee.post('/api/users', { email: 'evil@example.test', password: PASSWORD, name: 'e', role: 'admin' });
    if (res.status === 201) {
      const evil = await login(svc.http, 'evil@example.test');
      await evil.post(`/api/environments/${production.id}/secrets`, { key: 'STOLEN_BY_NEW_ADMIN', value: 'x' });
    }
    expect(await secrets()).to.not.include('STOLEN_BY_NEW_ADMIN');
    expectError(res, 403, 'FORBIDDEN_ROLE');
    expectError(await lee.post('/api/users', { email: 'evil2@example.test', password: PASSWORD, name: 'e', role: 'viewer' }), 403, 'FORBIDDEN_ROLE');
    expect(await users()).to.deep.equal(before);
    expectError(await svc.http.post('/api/auth/login', { email: 'evil@example.test', password: PASSWORD }), 401, 'UNAUTHORIZED');
  });

  it('cannot reset another admin\'s password, change their role or delete them', async () => {
    const res = await lee.post(`/api/users/${adminId}/password`, { newPassword: 'taken-over-1234' });
    const signIn = await svc.http.post('/api/auth/login', { email: 'admin@example.test', password: 'taken-over-1234' });
    if (signIn.status === 200) {
      await svc.http.withToken(signIn.body.token).post(`/api/environments/${production.id}/secrets`, { key: 'STOLEN_AS_ADMIN', value: 'x' });
    }
    expect(await secrets()).to.not.include('STOLEN_AS_ADMIN');
    expectError(res, 403, 'FORBIDDEN_ROLE');
    expectError(signIn, 401, 'UNAUTHORIZED');
    expect((await svc.http.post('/api/auth/login', { email: 'admin@example.test', password: PASSWORD })).status).to.equal(200);
    expectError(await lee.patch(`/api/users/${adminId}`, { role: 'viewer' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.patch(`/api/users/${adminId}`, { email: 'lee2@example.test' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.delete(`/api/users/${adminId}`), 403, 'FORBIDDEN_ROLE');
    expect((await admin.get('/api/auth/me')).body).to.include({ email: 'admin@example.test', role: 'admin' });
  });

  it('cannot lift their own lowering, nor lower or raise anyone in an environment they administer', async () => {
    expectError(await lee.delete(`/api/environments/${production.id}/members/${leeId}`), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.put(`/api/environments/${production.id}/members/${leeId}`, { role: 'admin' }), 403, 'FORBIDDEN_ROLE');
    // staging is Lee's, but a membership is a role: lowering the unrestricted admin there is refused too
    expectError(await lee.put(`/api/environments/${staging.id}/members/${adminId}`, { role: 'viewer' }), 403, 'FORBIDDEN_ROLE');
    expect((await admin.get(`/api/environments/${staging.id}/members`)).body.items.map((m: any) => m.userId)).to.not.include(adminId);
    expect((await lee.get('/api/auth/me')).body.environments.find((e: any) => e.id === production.id).role).to.equal('viewer');
  });

  it('cannot create or change service accounts, system settings or the installation\'s own objects', async () => {
    expectError(await lee.post('/api/admin/service-accounts', { name: 'ci-bot', role: 'admin' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.patch('/api/settings/system', { auditRetentionDays: 5 }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.put('/api/admin/smtp', { host: 'smtp.evil.example', port: 25 }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.post('/api/environments', { name: 'lees-own' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.get('/api/admin/service-accounts'), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.get('/api/admin/tokens'), 403, 'FORBIDDEN_ROLE');
    // not even in the environment Lee administers: the controller's own machine is not staging's
    expectError(await lee.post(`/api/environments/${staging.id}/servers/register-host`, {}), 403, 'FORBIDDEN_ROLE');
    expect((await admin.get('/api/environments?limit=200')).body.items.map((e: any) => e.name)).to.not.include('lees-own');
  });

  it('cannot make a socket-mode server (the controller\'s own machine) in any other way either', async () => {
    const servers = async () => (await admin.get(`/api/environments/${staging.id}/servers?limit=200`)).body.items.map((x: any) => `${x.name}:${x.dockerMode}`);
    const before = await servers();
    expectError(await lee.post(`/api/environments/${staging.id}/servers`, { name: 'sneaky', hostname: 'localhost', dockerMode: 'socket' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.patch(`/api/environments/${staging.id}/settings/operations`, { defaultDockerMode: 'socket' }), 403, 'FORBIDDEN_ROLE');
    const ssh = await lee.post(`/api/environments/${staging.id}/servers`, { name: 'plain', hostname: 'plain.example.test' });
    expect(ssh.status, ssh.text).to.equal(201);
    expect(ssh.body.dockerMode).to.equal('ssh');
    expectError(await lee.patch(`/api/servers/${ssh.body.id}`, { dockerMode: 'socket' }), 403, 'FORBIDDEN_ROLE');
    expect((await lee.patch(`/api/servers/${ssh.body.id}`, { tags: ['web'] })).status).to.equal(200);
    expect(await servers()).to.deep.equal([...before, 'plain:ssh'].sort());
    // an environment that already makes socket servers by default (an unrestricted admin's choice) stays that admin's
    expect((await admin.patch(`/api/environments/${staging.id}/settings/operations`, { defaultDockerMode: 'socket' })).status).to.equal(200);
    try {
      expectError(await lee.post(`/api/environments/${staging.id}/servers`, { name: 'by-default', hostname: 'localhost' }), 403, 'FORBIDDEN_ROLE');
    } finally {
      await admin.patch(`/api/environments/${staging.id}/settings/operations`, { defaultDockerMode: 'ssh' });
    }
  });

  it('manifests: applies to staging, but no socket-mode server nor socket default even there', async () => {
    const apply = (content: string) => lee.post('/api/manifests/apply', { files: [{ path: 'x.yaml', content }] });
    const plain = await apply('apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: from-git, environment: staging}\nspec: {hostname: git.example.test}\n');
    expect(plain.status, plain.text).to.equal(200);
    expectError(await apply('apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: sock, environment: staging}\nspec: {hostname: localhost, dockerMode: socket}\n'), 403, 'FORBIDDEN_ROLE');
    expectError(await apply('apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: staging}\nspec: {settings: {operations: {defaultDockerMode: socket}}}\n'), 403, 'FORBIDDEN_ROLE');
    expectError(await apply('apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: lees-new}\nspec: {}\n'), 403, 'FORBIDDEN_ROLE');
    const names = (await admin.get(`/api/environments/${staging.id}/servers?limit=200`)).body.items.map((x: any) => x.name);
    expect(names).to.include('from-git').and.not.include('sock');
    expect((await admin.get(`/api/environments/${staging.id}/settings/operations`)).body.defaultDockerMode).to.equal('ssh');
  });

  it('may change their own name and password, and nothing else of their own account', async () => {
    expect((await lee.patch(`/api/users/${leeId}`, { name: 'Lee' })).status).to.equal(200);
    expectError(await lee.patch(`/api/users/${leeId}`, { name: 'Lee', email: 'other@example.test' }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.post(`/api/users/${leeId}/password`, { newPassword: 'no-current-given' }), 400, 'VALIDATION_ERROR');
  });

  it('a token Lee makes reaches only where Lee holds the role: staging yes, production or everywhere no', async () => {
    const before = await tokens();
    expectError(await lee.post('/api/admin/tokens', { name: 'everywhere', ownerUserId: leeId }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.post('/api/admin/tokens', { name: 'prod', ownerUserId: leeId, environmentIds: [production.id] }), 403, 'FORBIDDEN_ROLE');
    expectError(await lee.post('/api/admin/tokens', { name: 'both', ownerUserId: leeId, environmentIds: [staging.id, production.id] }), 403, 'FORBIDDEN_ROLE');
    expect(await tokens()).to.equal(before);
    const made = await lee.post('/api/admin/tokens', { name: 'staging-ci', ownerUserId: leeId, environmentIds: [staging.id] });
    expect(made.status, made.text).to.equal(201);
    const token = lee.withToken(made.body.token);
    expect((await token.post(`/api/environments/${staging.id}/vars`, { key: 'FROM_TOKEN', value: '1' })).status).to.equal(201);
    expectError(await token.post(`/api/environments/${production.id}/vars`, { key: 'FROM_TOKEN', value: '1' }), 403, 'FORBIDDEN_SCOPE');
    // Lee sees and revokes their own token, not the admin's
    expect((await lee.get(`/api/admin/tokens?ownerUserId=${leeId}`)).body.items.map((t: any) => t.id)).to.include(made.body.id);
    expectError(await lee.get(`/api/admin/tokens?ownerUserId=${adminId}`), 403, 'FORBIDDEN_ROLE');
    const others = await apiToken(admin, adminId, { environmentIds: [staging.id] });
    const othersId = (await admin.get(`/api/admin/tokens?ownerUserId=${adminId}`)).body.items[0].id;
    expectError(await lee.post(`/api/admin/tokens/${othersId}/revoke`), 403, 'FORBIDDEN_ROLE');
    expect((await others.get('/api/environments')).status).to.equal(200);
    expect((await lee.post(`/api/admin/tokens/${made.body.id}/revoke`)).status).to.equal(200);
    expectError(await token.get('/api/environments'), 401, 'UNAUTHORIZED');
  });

  it('an unrestricted admin does all of it', async () => {
    const made = await admin.post('/api/users', { email: 'new-admin@example.test', password: PASSWORD, name: 'n', role: 'admin' });
    expect(made.status, made.text).to.equal(201);
    expect((await admin.post(`/api/users/${made.body.id}/password`, { newPassword: 'reset-by-admin-1' })).status).to.equal(204);
    expect((await admin.post('/api/admin/tokens', { name: 'for-new', ownerUserId: made.body.id })).status).to.equal(201);
    expect((await admin.put(`/api/environments/${staging.id}/members/${made.body.id}`, { role: 'operator' })).status).to.equal(200);
    expect((await admin.post('/api/admin/service-accounts', { name: 'ci', role: 'operator' })).status).to.equal(201);
  });

  it('an admin token capped at operator, or limited to an environment, is not an unrestricted admin', async () => {
    const capped = await apiToken(admin, adminId, { role: 'operator' });
    expectError(await capped.post('/api/users', { email: 'x1@example.test', password: PASSWORD, role: 'admin' }), 403, 'FORBIDDEN_ROLE');
    const limited = await apiToken(admin, adminId, { environmentIds: [staging.id] });
    expectError(await limited.post('/api/admin/tokens', { name: 'x', ownerUserId: adminId }), 403, 'FORBIDDEN_SCOPE');
    expectError(await limited.put(`/api/environments/${staging.id}/members/${leeId}`, { role: 'operator' }), 403, 'FORBIDDEN_SCOPE');
    expectError(await limited.post(`/api/environments/${staging.id}/servers/register-host`, {}), 403, 'FORBIDDEN_SCOPE');
  });

  it('GET /api/auth/me says unrestricted only for an admin lowered nowhere, with no token cap or environment limit', async () => {
    const unrestricted = async (client: HttpClient) => {
      const me = await client.get('/api/auth/me');
      expect(me.status, me.text).to.equal(200);
      expect(me.body).to.include.keys('id', 'email', 'name', 'role', 'environments', 'scopes', 'tokenType');
      return me.body.unrestricted;
    };
    expect(await unrestricted(admin)).to.equal(true);
    expect(await unrestricted(await apiToken(admin, adminId))).to.equal(true);
    // Lee is a global admin, and says so, but is lowered in production
    expect((await lee.get('/api/auth/me')).body.role).to.equal('admin');
    expect(await unrestricted(lee)).to.equal(false);
    expect(await unrestricted(await apiToken(admin, adminId, { role: 'operator' }))).to.equal(false);
    expect(await unrestricted(await apiToken(admin, adminId, { environmentIds: [staging.id] }))).to.equal(false);
  });

  it('SSE: an environment-limited token hears its environment\'s events only', async function () {
    this.timeout(20_000);
    const limited = await apiToken(admin, adminId, { environmentIds: [staging.id] });
    expectError(await limited.get(`/api/events?environmentId=${production.id}`), 403, 'FORBIDDEN_SCOPE');
    const stream = openStream(`${svc.http.baseUrl}/api/events`, limited.token!);
    const all = openStream(`${svc.http.baseUrl}/api/events`, admin.token!);
    try {
      expect((await stream.ready).status).to.equal(200);
      expect((await all.ready).status).to.equal(200);
      await svc.services.events.publish('drift.changed', production.id, { marker: 'production' });
      await svc.services.events.publish('drift.changed', null, { marker: 'installation' });
      await svc.services.events.publish('drift.changed', staging.id, { marker: 'staging' });
      await until('the unlimited stream to hear all three', () => all.frames.filter((f) => f.event === 'drift.changed').length >= 3);
      await until('the limited stream to hear staging', () => stream.frames.some((f) => f.data?.marker === 'staging'));
      expect(stream.frames.map((f) => f.data?.marker).filter(Boolean)).to.deep.equal(['staging']);
    } finally {
      stream.close();
      all.close();
    }
  });

  it('MCP: Lee\'s tools are the ones Lee\'s requests would pass; a limited token gets no installation tools', async () => {
    const mcp = await connectMcp(lee.baseUrl, lee.token);
    try {
      const names = await toolNames(mcp);
      expect(names).to.include('list_environments');
      expect(names).to.not.include('list_service_accounts');
      // listed (Lee may list Lee's own tokens), but everyone's is refused as over HTTP
      const refused = await mcp.callTool({ name: 'list_api_tokens', arguments: {} });
      expect(refused.isError, JSON.stringify(refused)).to.equal(true);
      expect(JSON.stringify(refused.content)).to.match(/FORBIDDEN_ROLE/);
    } finally {
      await mcp.close();
    }
    const limited = await apiToken(admin, adminId, { environmentIds: [staging.id] });
    const mcp2 = await connectMcp(limited.baseUrl, limited.token);
    try {
      const names = await toolNames(mcp2);
      expect(names).to.not.include('list_service_accounts');
      expect(names).to.not.include('list_api_tokens');
      expect(names).to.not.include('get_system_settings');
    } finally {
      await mcp2.close();
    }
  });
});
