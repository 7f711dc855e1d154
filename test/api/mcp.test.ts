import crypto from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiToken, startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { awayFromBucketEdge, connectMcp, toolJson, toolNames } from '../support/mcp-client.js';
import { KINDS } from '../../controller/kinds/index.js';

// Written out from the interface spec (MCP endpoint), not imported from the code under test.
const WRITE_TOOLS = ['deploy_service', 'execute_deployment_plan', 'restart_deployment', 'rollback_deployment_plan',
  'run_database_backup', 'sync_config_file', 'refresh_server_health', 'execute_sync_batch'];
const ADMIN_TOOLS = ['get_environment_settings', 'list_service_accounts', 'list_api_tokens'];
// The list tool of each kind the generic CRUD routes serve under an environment: `list_` and its
// path (list_external_entities, list_server_clusters), from the descriptors, so a new kind counts.
const KIND_ENV_READS = KINDS.filter((k) => k.api && k.api.collection !== 'query').map((k) => `list_${k.api!.path.replace(/-/g, '_')}`);
// (a set: a kind listed here by name may also be one the descriptors count)
const ENV_LIMITED_READS = [...new Set(['list_servers', 'get_server_health', 'list_services', 'get_dependency_graph', 'list_config_files',
  'list_config_fragments', 'list_secrets', 'list_vars', 'list_databases', 'list_container_images', 'list_registries',
  'get_topology', ...KIND_ENV_READS, 'list_webhook_subscriptions', 'get_metrics_history',
  'list_health_checks', 'list_deployment_plans'])];

/** POST /mcp by hand (for the cases the SDK client would not send). */
async function rawMcp(base: string, opts: { method?: string; token?: string; host?: string; body?: unknown } = {}) {
  const url = new URL('/mcp', base);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request(url, {
      method: opts.method ?? 'POST',
      headers: {
        accept: 'application/json, text/event-stream', 'content-type': 'application/json',
        ...(opts.host && { host: opts.host }), ...(opts.token && { authorization: `Bearer ${opts.token}` }),
      },
    }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('MCP endpoint (POST /mcp, official SDK client over real HTTP)', () => {
  let w: RoleWorld;
  let admin: Client;
  let adminId: string;

  before(async () => {
    w = await startWithRoles({ MCP_ENABLED: 'true' });
    admin = await connectMcp(w.svc.url, w.admin.token);
    adminId = (await w.admin.get('/api/auth/me')).body.id;
  });
  after(async () => {
    await admin?.close();
    await w.svc.stop();
  });

  it('initializes: server name and the service version, tools and resources only', async () => {
    expect(admin.getServerVersion()).to.include({ name: 'stevedore', version: (await w.svc.http.get('/health')).body.version });
    const caps = admin.getServerCapabilities()!;
    expect(caps.tools).to.deep.equal({ listChanged: false });
    expect(caps.resources).to.deep.include({ subscribe: false, listChanged: false });
    expect(caps.prompts).to.equal(undefined);
  });

  it('answers 401 in the error envelope without a bearer token, and with a bad one', async () => {
    const none = await rawMcp(w.svc.url, { body: initialize });
    expect(none.status).to.equal(401);
    expect(none.body).to.include({ code: 'UNAUTHORIZED' });
    expect(none.body.requestId).to.equal(none.headers['x-request-id']);
    const bad = await rawMcp(w.svc.url, { body: initialize, token: 'svc_pat_not-a-token' });
    expect(bad.status).to.equal(401);
    expect(bad.body.code).to.equal('UNAUTHORIZED');
    let failed: unknown = null;
    await connectMcp(w.svc.url, null).catch((e) => (failed = e));
    expect(String(failed)).to.match(/UNAUTHORIZED/);
  });

  it('answers GET and DELETE with 405 and the transport\'s JSON-RPC error body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await rawMcp(w.svc.url, { method, token: w.admin.token! });
      expect(res.status, method).to.equal(405);
      expect(res.headers.allow).to.equal('POST');
      expect(res.body).to.deep.equal({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
  });

  it('lists tools by role: viewers get no write tools, operators no admin-gated ones, admins all', async () => {
    const all = await toolNames(admin);
    expect(all).to.include.members(['list_environments', 'get_capabilities', 'get_version', 'list_servers', 'deploy_service',
      'sync_config_file', 'list_api_tokens', 'get_environment_settings']);
    // Tools whose routes exist are listed (databases, metrics, topology, health checks).
    expect(all).to.include.members(['list_databases', 'get_server_metrics', 'get_metrics_history', 'get_topology', 'run_database_backup']);
    // the spec's topology tools, which the kinds' descriptors derive
    expect(all).to.include.members(['list_external_entities', 'list_server_clusters', 'list_connections']);
    expect(all.filter((n) => /reveal|^create_|^update_|^delete_/.test(n))).to.deep.equal([]);

    const operator = await connectMcp(w.svc.url, w.operator.token);
    const opTools = await toolNames(operator);
    expect(opTools).to.include.members(WRITE_TOOLS.filter((t) => all.includes(t)));
    expect(opTools.filter((t) => ADMIN_TOOLS.includes(t))).to.deep.equal([]);
    await operator.close();

    const viewer = await connectMcp(w.svc.url, w.viewer.token);
    const vTools = await toolNames(viewer);
    expect(vTools.filter((t) => WRITE_TOOLS.includes(t) || ADMIN_TOOLS.includes(t))).to.deep.equal([]);
    expect(vTools).to.include.members(['list_servers', 'get_service', 'list_vars', 'get_capabilities']);
    const r = await viewer.callTool({ name: 'deploy_service', arguments: { id: crypto.randomUUID() } });
    expect(r.isError).to.equal(true);
    expect((r.content as any)[0].text).to.match(/not found/i);
    await viewer.close();

    const capped = await connectMcp(w.svc.url, (await apiToken(w.admin, adminId, { role: 'viewer' })).token);
    expect(await toolNames(capped)).to.deep.equal(vTools);
    await capped.close();
  });

  it('lists for an environment-limited token only the tools its routes allow (rule 7)', async () => {
    const all = await toolNames(admin);
    const expected = [...ENV_LIMITED_READS, 'list_environments', 'get_environment', 'get_version', 'get_capabilities']
      .filter((t) => all.includes(t)).sort();
    const limitedAdmin = await apiToken(w.admin, adminId, { environmentIds: [w.envId] });
    const c = await connectMcp(w.svc.url, limitedAdmin.token);
    expect(await toolNames(c)).to.deep.equal([...expected, 'get_environment_settings'].sort());
    // A tool it has, pointed at another environment, is the API's FORBIDDEN_SCOPE.
    const other = (await w.admin.post('/api/environments', { name: `other-${Date.now()}` })).body;
    const r = await c.callTool({ name: 'list_servers', arguments: { envId: other.id } });
    expect(r.isError).to.equal(true);
    expect(r.structuredContent).to.include({ code: 'FORBIDDEN_SCOPE' });
    const own = await c.callTool({ name: 'get_environment_settings', arguments: { id: w.envId, module: 'general' } });
    expect(own.isError, JSON.stringify(own)).to.equal(undefined);
    await c.close();

    const limitedViewer = await apiToken(w.admin, adminId, { environmentIds: [w.envId], role: 'viewer' });
    const v = await connectMcp(w.svc.url, limitedViewer.token);
    expect(await toolNames(v)).to.deep.equal(expected);
    await v.close();
  });

  it('tools/call with null or non-object arguments (and resources/read with a non-string uri) is JSON-RPC -32602, not -32603', async () => {
    const call = (args: unknown, id: number) => rawMcp(w.svc.url, { token: w.admin.token!, body: {
      jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_environments', arguments: args } } });
    let id = 10;
    for (const args of [null, 'text', 7, true, ['a']]) {
      const res = await call(args, ++id);
      expect(res.status, JSON.stringify(args)).to.equal(200);
      expect(res.body, JSON.stringify(args)).to.deep.include({ jsonrpc: '2.0', id });
      expect(res.body.result, JSON.stringify(args)).to.equal(undefined);
      expect(res.body.error?.code, `${JSON.stringify(args)}: ${JSON.stringify(res.body)}`).to.equal(-32602);
      expect(res.body.error.message).to.match(/arguments/);
    }
    const read = await rawMcp(w.svc.url, { token: w.admin.token!, body: { jsonrpc: '2.0', id: 99, method: 'resources/read', params: { uri: 7 } } });
    expect(read.body.error?.code, JSON.stringify(read.body)).to.equal(-32602);
    expect(read.body.error.message).to.match(/uri/);
    // an object, or no arguments at all, still calls the tool
    for (const args of [{}, undefined]) {
      const ok = await call(args, ++id);
      expect(ok.body.error, JSON.stringify(ok.body)).to.equal(undefined);
      expect(ok.body.result.isError, JSON.stringify(ok.body)).to.equal(undefined);
    }
  });

  it('read tools answer what the route answers, and API errors keep their code and message', async () => {
    const direct = await w.admin.get(`/api/environments/${w.envId}/servers`);
    const viaMcp = await admin.callTool({ name: 'list_servers', arguments: { envId: w.envId } });
    expect(viaMcp.isError).to.equal(undefined);
    expect(toolJson(viaMcp)).to.deep.equal(direct.body);
    expect(viaMcp.structuredContent).to.deep.equal(direct.body);

    const missing = await admin.callTool({ name: 'get_service', arguments: { id: crypto.randomUUID() } });
    expect(missing.isError).to.equal(true);
    expect(missing.structuredContent).to.include({ code: 'NOT_FOUND', message: 'Service not found' });
    expect((missing.content as any)[0].text).to.match(/^NOT_FOUND: Service not found/);

    const invalid = await admin.callTool({ name: 'query_audit_log', arguments: { environmentId: 'not-a-uuid' } });
    expect(invalid.structuredContent).to.include({ code: 'VALIDATION_ERROR', field: 'environmentId' });

    const version = await admin.callTool({ name: 'get_version', arguments: {} });
    expect(toolJson(version).version).to.equal((await w.svc.http.get('/health')).body.version);
  });

  it('list_vars leaves out the plaintext values; list_secrets never has them', async () => {
    await w.operator.post(`/api/environments/${w.envId}/vars`, { key: 'PUBLIC_URL', value: 'https://var-value.example' });
    await w.operator.post(`/api/environments/${w.envId}/secrets`, { key: 'API_PASSWORD', value: 'secret-value-xyz' });
    const vars = await admin.callTool({ name: 'list_vars', arguments: { envId: w.envId } });
    const item = toolJson(vars).items.find((v: any) => v.key === 'PUBLIC_URL');
    expect(item).to.include({ key: 'PUBLIC_URL' });
    expect(item).to.not.have.property('value');
    expect(JSON.stringify(vars)).to.not.include('var-value.example');
    const secrets = await admin.callTool({ name: 'list_secrets', arguments: { envId: w.envId } });
    expect(JSON.stringify(secrets)).to.not.include('secret-value-xyz');
  });

  it('database tools: list and get are credential-free, backups list with paging, run_database_backup replays its route', async () => {
    const created = await w.operator.post(`/api/environments/${w.envId}/databases`, {
      name: 'mcp-shop', type: 'postgres', databaseName: 'shop', username: 'app', password: 'mcp-db-password-77', host: '127.0.0.1', port: 1,
    });
    expect(created.status, created.text).to.equal(201);
    const list = await admin.callTool({ name: 'list_databases', arguments: { envId: w.envId } });
    expect(toolJson(list)).to.deep.equal((await w.admin.get(`/api/environments/${w.envId}/databases`)).body);
    const one = await admin.callTool({ name: 'get_database', arguments: { id: created.body.id } });
    expect(toolJson(one)).to.include({ name: 'mcp-shop', hasCredentials: true });
    expect(JSON.stringify([list, one])).to.not.include('mcp-db-password-77');
    const backups = await admin.callTool({ name: 'list_database_backups', arguments: { id: created.body.id, limit: 5, offset: 0 } });
    expect(toolJson(backups)).to.include({ total: 0, limit: 5, offset: 0 });
    // a database at host:port has no container to dump from: the route's refusal comes back as is
    const run = await admin.callTool({ name: 'run_database_backup', arguments: { id: created.body.id } });
    expect(run.isError).to.equal(true);
    expect(run.structuredContent).to.include({ code: 'CONFLICT' });
    const status = (await w.admin.get('/api/admin/mcp')).body;
    expect(status.absentTools).to.not.include.members(['list_databases', 'get_database', 'list_database_backups', 'run_database_backup']);
  });

  it('get_capabilities is built locally: version, the token\'s scopes and its tools', async () => {
    const viewer = await connectMcp(w.svc.url, w.viewer.token);
    const caps = (await viewer.callTool({ name: 'get_capabilities', arguments: {} })).structuredContent as any;
    expect(caps.version).to.equal((await w.svc.http.get('/health')).body.version);
    expect(caps.scopes).to.deep.equal(['*:read']);
    expect([...caps.tools].sort()).to.deep.equal(await toolNames(viewer));
    await viewer.close();
  });

  it('write tools replay their route: audited with the caller, its address and the MCP request id', async () => {
    const file = (await w.operator.post(`/api/environments/${w.envId}/config-files`, { name: 'audit.conf', content: 'a=1\n' })).body;
    const requestId = `mcp-test-${crypto.randomUUID()}`;
    const c = await connectMcp(w.svc.url, w.admin.token, { headers: { 'x-request-id': requestId } });
    const res = await c.callTool({ name: 'sync_config_file', arguments: { id: file.id } });
    expect(res.isError, JSON.stringify(res)).to.equal(undefined);
    expect(toolJson(res)).to.include({ dryRun: false, status: 'succeeded' });
    const audit = (await w.admin.get(`/api/audit-logs?resourceId=${file.id}&action=syncConfigFile`)).body.items;
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ actorId: adminId, actorType: 'user', ip: '127.0.0.1', requestId });
    await c.close();
  });

  it('a repeated write within the bucket replays the first answer; a dry run is recomputed; an explicit key overrides', async function () {
    this.timeout(40_000);
    await awayFromBucketEdge();
    const op = await connectMcp(w.svc.url, w.operator.token);
    const file = (await w.operator.post(`/api/environments/${w.envId}/config-files`, { name: 'replay.conf', content: 'x=1\n' })).body;
    const first = await op.callTool({ name: 'sync_config_file', arguments: { id: file.id } });
    const again = await op.callTool({ name: 'sync_config_file', arguments: { id: file.id } });
    const key = crypto.createHash('sha256')
      .update(`sync_config_file:${Math.floor(Date.now() / 60_000)}:{"id":${JSON.stringify(file.id)}}`).digest('hex');
    expect(first._meta).to.include({ 'stevedore/idempotencyKey': key });
    expect(first._meta).to.not.have.property('stevedore/idempotentReplayed');
    expect(again._meta).to.include({ 'stevedore/idempotencyKey': key, 'stevedore/idempotentReplayed': true });
    expect(toolJson(again)).to.deep.equal(toolJson(first));
    const audited = async () => (await w.admin.get(`/api/audit-logs?resourceId=${file.id}&action=syncConfigFile`)).body.total;
    expect(await audited()).to.equal(1);

    const dry1 = await op.callTool({ name: 'sync_config_file', arguments: { id: file.id, dryRun: true } });
    const dry2 = await op.callTool({ name: 'sync_config_file', arguments: { id: file.id, dryRun: true } });
    for (const d of [dry1, dry2]) {
      expect(d._meta).to.not.have.property('stevedore/idempotencyKey');
      expect(d._meta).to.not.have.property('stevedore/idempotentReplayed');
      expect(toolJson(d)).to.include({ dryRun: true });
    }

    const other = (await w.operator.post(`/api/environments/${w.envId}/config-files`, { name: 'other.conf', content: 'y=1\n' })).body;
    const k = `agent-key-${crypto.randomUUID()}`;
    const mine = await op.callTool({ name: 'sync_config_file', arguments: { id: file.id, idempotencyKey: k } });
    expect(mine._meta).to.include({ 'stevedore/idempotencyKey': k });
    expect(mine._meta).to.not.have.property('stevedore/idempotentReplayed');
    const reused = await op.callTool({ name: 'sync_config_file', arguments: { id: other.id, idempotencyKey: k } });
    expect(reused.isError).to.equal(true);
    expect(reused.structuredContent).to.include({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await op.close();
  });

  it('resources: capabilities, and config files and fragments of the caller\'s environments in their stored form', async () => {
    await w.operator.post(`/api/environments/${w.envId}/secrets`, { key: 'DB_PASSWORD', value: 'hunter2-resource' });
    const file = (await w.operator.post(`/api/environments/${w.envId}/config-files`,
      { name: 'app.env', content: 'DB_PASSWORD=${DB_PASSWORD}\n${fragment:common}\n' })).body;
    const fragment = (await w.operator.post(`/api/environments/${w.envId}/config-fragments`, { name: 'common', content: 'LOG=info\n' })).body;

    const { resources } = await admin.listResources();
    const byUri = new Map(resources.map((r) => [r.uri, r]));
    expect(byUri.get('svc:///capabilities')).to.include({ mimeType: 'application/json' });
    expect(byUri.get(`svc:///config-files/${file.id}`)).to.include({ name: `${w.env.name}/app.env` });
    expect(byUri.get(`svc:///config-fragments/${fragment.id}`)).to.include({ name: `${w.env.name}/common` });
    const { resourceTemplates } = await admin.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).to.deep.equal(['svc:///config-files/{id}', 'svc:///config-fragments/{id}']);

    const read = await admin.readResource({ uri: `svc:///config-files/${file.id}` });
    expect((read.contents[0] as any).text).to.equal('DB_PASSWORD=${DB_PASSWORD}\n${fragment:common}\n');
    expect(JSON.stringify(read)).to.not.include('hunter2-resource');
    expect(((await admin.readResource({ uri: `svc:///config-fragments/${fragment.id}` })).contents[0] as any).text).to.equal('LOG=info\n');
    let missing: any = null;
    await admin.readResource({ uri: `svc:///config-files/${crypto.randomUUID()}` }).catch((e) => (missing = e));
    expect(String(missing?.message)).to.match(/NOT_FOUND: Config file not found/);

    const caps = JSON.parse(((await admin.readResource({ uri: 'svc:///capabilities' })).contents[0] as any).text);
    expect(caps.resources).to.deep.equal(['svc:///capabilities', 'svc:///config-files/{id}', 'svc:///config-fragments/{id}']);
    expect(caps.tools).to.include('get_capabilities');

    // An environment-limited token reads no per-id route, so it is offered only the capabilities.
    const limited = await connectMcp(w.svc.url, (await apiToken(w.admin, adminId, { environmentIds: [w.envId] })).token);
    expect((await limited.listResources()).resources.map((r) => r.uri)).to.deep.equal(['svc:///capabilities']);
    await limited.close();
  });

  it('GET /api/admin/mcp: admins see the status and the inventory with each tool\'s route', async () => {
    const res = await w.admin.get('/api/admin/mcp');
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ enabled: true, endpoint: '/mcp', dnsRebindingProtection: false });
    expect(res.body.allowedHosts).to.deep.equal([]);
    const tools = new Map(res.body.tools.map((t: any) => [t.name, t]));
    expect(tools.get('list_servers')).to.include({ kind: 'read', route: 'GET /api/environments/{envId}/servers', destructive: false });
    expect(tools.get('deploy_service')).to.include({ kind: 'write', route: 'POST /api/services/{id}/deploy', destructive: true });
    expect(tools.get('list_api_tokens')).to.include({ kind: 'admin-read', access: 'tokens:manage' });
    expect(tools.get('get_capabilities')).to.include({ kind: 'local', route: null });
    expect(res.body.tools.filter((t: any) => /^(PUT|PATCH|DELETE) |\/reveal$/.test(t.route ?? ''))).to.deep.equal([]);
    expect(tools.get('get_server_metrics')).to.include({ kind: 'read', route: 'GET /api/servers/{id}/metrics' });
    // a tool is absent only while none of its routes is served (checked against the OpenAPI document)
    const paths = (await w.svc.http.get('/api/openapi.json')).body.paths;
    for (const absent of res.body.absentTools) {
      for (const r of absent.routes) {
        const [method, path] = r.split(' ');
        expect(paths[path]?.[method.toLowerCase()], `${absent.name}: ${r}`).to.equal(undefined);
      }
    }
    expect(tools.get('get_topology')).to.include({ kind: 'read', route: 'GET /api/environments/{envId}/topology' });
    expect([...tools.keys()].sort()).to.deep.equal(await toolNames(admin));
    expect(res.body.resources.map((r: any) => r.uri)).to.deep.equal(['svc:///capabilities', 'svc:///config-files/{id}', 'svc:///config-fragments/{id}']);
    for (const who of [w.operator, w.viewer]) expect((await who.get('/api/admin/mcp')).body.code).to.equal('FORBIDDEN_ROLE');
    expect((await w.svc.http.get('/api/admin/mcp')).status).to.equal(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await w.svc.http.get('/api/openapi.json')).body;
    expect(doc.paths['/api/admin/mcp'].get).to.include({ operationId: 'getMcpStatus', 'x-access': 'admin' });
  });
});

describe('MCP endpoint: configuration', () => {
  let svc: TestService | null = null;
  afterEach(async () => {
    await svc?.stop();
    svc = null;
  });

  it('is not registered when MCP_ENABLED is off: 404 NOT_FOUND, and the admin status says so', async () => {
    const w = await startWithRoles();
    svc = w.svc;
    const res = await rawMcp(w.svc.url, { body: initialize, token: w.admin.token! });
    expect(res.status).to.equal(404);
    expect(res.body.code).to.equal('NOT_FOUND');
    expect((await rawMcp(w.svc.url, { method: 'GET', token: w.admin.token! })).status).to.equal(404);
    expect((await w.admin.get('/api/admin/mcp')).body).to.include({ enabled: false });
  });

  it('MCP_ALLOWED_HOSTS turns on DNS-rebinding protection for those host names', async () => {
    const w = await startWithRoles({ MCP_ENABLED: 'true', MCP_ALLOWED_HOSTS: '127.0.0.1,mcp.example.test' });
    svc = w.svc;
    const port = new URL(w.svc.url).port;
    const evil = await rawMcp(w.svc.url, { body: initialize, token: w.admin.token!, host: `rebound.attacker.test:${port}` });
    expect(evil.status).to.equal(403);
    expect(evil.body).to.deep.include({ jsonrpc: '2.0', id: null });
    expect(evil.body.error.message).to.match(/Invalid Host/);
    const named = await rawMcp(w.svc.url, { body: initialize, token: w.admin.token!, host: `mcp.example.test:${port}` });
    expect(named.status).to.equal(200);
    const c = await connectMcp(w.svc.url, w.admin.token);
    expect(await toolNames(c)).to.include('list_environments');
    await c.close();
    expect((await w.admin.get('/api/admin/mcp')).body).to.include({ dnsRebindingProtection: true });
    expect((await w.admin.get('/api/admin/mcp')).body.allowedHosts).to.deep.equal(['127.0.0.1', 'mcp.example.test']);
  });

  it('counts the MCP request and each replayed sub-call against the real client address', async () => {
    const w = await startWithRoles({ MCP_ENABLED: 'true', RATE_LIMIT_PER_MINUTE: '1000' });
    svc = w.svc;
    const remainingFor127007 = () => new Promise<number>((resolve, reject) => {
      http.get(new URL('/api/auth/me', w.svc.url), { localAddress: '127.0.0.7', headers: { authorization: `Bearer ${w.admin.token}` } }, (res) => {
        res.resume();
        resolve(Number(res.headers['ratelimit-remaining']));
      }).on('error', reject);
    });
    // A client at 127.0.0.7 has its own rate-limit window, apart from the fixtures' 127.0.0.1.
    const c = await connectMcp(w.svc.url, w.admin.token, { localAddress: '127.0.0.7' });
    const file = (await w.admin.post(`/api/environments/${w.envId}/config-files`, { name: 'ip.conf', content: 'x\n' })).body;
    const before = await remainingFor127007();
    const r = await c.callTool({ name: 'sync_config_file', arguments: { id: file.id } });
    expect(r.isError, JSON.stringify(r)).to.equal(undefined);
    // POST /mcp, its sub-call, and this request: 3 more from 127.0.0.7.
    expect(await remainingFor127007()).to.equal(before - 3);
    const audit = (await w.admin.get(`/api/audit-logs?resourceId=${file.id}&action=syncConfigFile`)).body.items;
    expect(audit[0].ip).to.equal('127.0.0.7');
    await c.close();
  });
});
