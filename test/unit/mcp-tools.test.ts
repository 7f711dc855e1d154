import crypto from 'node:crypto';
import { expect } from 'chai';
import { canonicalJson, idempotencyKeyFor } from '../../api/mcp/idempotency-key.js';
import { buildToolCatalog } from '../../api/mcp/tool-catalog.js';
import { requestOf } from '../../api/mcp/tool-call.js';
import { route, type RouteSpec } from '../../api/http/route.js';
import { bool, object, str } from '../../api/http/schema.js';

const spec = (method: RouteSpec['method'], path: string, extra: Partial<RouteSpec> = {}): RouteSpec =>
  route({ method, path, operationId: 'op', summary: 'Does it', tag: 't', access: 'operator', handler: async () => ({}), ...extra });

describe('MCP tools: derived idempotency key', () => {
  const at = Date.UTC(2026, 0, 1, 12, 0, 10);

  it('is sha256(tool:bucket:canonical JSON), the same for the same arguments in any key order', () => {
    const expected = crypto.createHash('sha256').update(`deploy_service:${Math.floor(at / 60_000)}:{"id":"s1","imageTag":"v2"}`).digest('hex');
    expect(idempotencyKeyFor('deploy_service', { imageTag: 'v2', id: 's1' }, at)).to.equal(expected);
    expect(idempotencyKeyFor('deploy_service', { id: 's1', imageTag: 'v2' }, at + 40_000)).to.equal(expected);
    expect(idempotencyKeyFor('deploy_service', { id: 's1', imageTag: 'v2' }, at + 60_000)).to.not.equal(expected);
    expect(idempotencyKeyFor('sync_config_file', { id: 's1', imageTag: 'v2' }, at)).to.not.equal(expected);
  });

  it('is absent for a dry run; an explicit idempotencyKey wins and is left out of the hash', () => {
    expect(idempotencyKeyFor('sync_config_file', { id: 'f', dryRun: true }, at)).to.equal(null);
    expect(idempotencyKeyFor('sync_config_file', { id: 'f', idempotencyKey: 'mine' }, at)).to.equal('mine');
    expect(idempotencyKeyFor('sync_config_file', { id: 'f', dryRun: false }, at)).to.be.a('string').with.length(64);
  });

  it('canonical JSON sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: [{ y: 1, x: 2 }], a: undefined, c: null })).to.equal('{"b":[{"x":2,"y":1}],"c":null}');
  });
});

describe('MCP tools: catalog from the route table', () => {
  it('binds a spec-named tool to its route and leaves out tools whose route is missing', () => {
    const c = buildToolCatalog([spec('POST', '/api/config-files/{id}/sync-all', { body: object({ dryRun: bool }) })]);
    expect(c.tools.map((t) => t.name)).to.deep.equal(['sync_config_file']);
    expect(c.absent.map((t) => t.name)).to.include('deploy_service');
    const [tool] = c.tools;
    expect(tool).to.include({ write: true, route: 'POST /api/config-files/{id}/sync-all' });
    expect(Object.keys(tool.input.shape).sort()).to.deep.equal(['dryRun', 'id', 'idempotencyKey']);
    const r = requestOf(tool, { id: 'f/1', dryRun: false }, 0);
    expect(r).to.include({ method: 'POST', url: '/api/config-files/f%2F1/sync-all', body: '{"dryRun":false}' });
  });

  it('names path parameters as the spec does and sends query arguments in a stable order', () => {
    const c = buildToolCatalog([spec('GET', '/api/environments/{envId}/settings/{module}', { access: 'admin', query: { b: str(), a: str() } })]);
    const [tool] = c.tools;
    expect(tool).to.include({ name: 'get_environment_settings', adminGated: true, write: false });
    expect(requestOf(tool, { id: 'e1', module: 'general', b: '2', a: '1' }).url).to.equal('/api/environments/e1/settings/general?a=1&b=2');
  });

  it('refuses a tool name bound twice (a kind\'s derived list tool named like another tool)', () => {
    const s = spec('GET', '/api/environments/{envId}/widgets');
    const twice = [{ name: 'list_widgets', routes: ['GET /api/environments/{envId}/widgets'] }, { name: 'list_widgets', routes: ['GET /api/x'] }];
    expect(() => buildToolCatalog([s], twice)).to.throw(/MCP tool list_widgets is bound twice/);
    expect(buildToolCatalog([s], twice.slice(0, 1)).tools.map((t) => t.name)).to.deep.equal(['list_widgets']);
  });

  it('refuses to bind a tool to an update, a delete, a protected create, a reveal or a stream', () => {
    const bad = [
      spec('PATCH', '/api/services/{id}'), spec('DELETE', '/api/servers/{id}'), spec('POST', '/api/environments/{envId}/secrets'),
      spec('POST', '/api/secrets/{id}/reveal'), spec('GET', '/api/x', { raw: true }),
    ];
    for (const s of bad) {
      expect(() => buildToolCatalog([s], [{ name: 'bad_tool', routes: [`${s.method} ${s.path}`] }]), s.path).to.throw(/MCP tool bad_tool cannot replay/);
    }
  });
});
