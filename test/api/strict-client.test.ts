import { expect } from 'chai';
import { expectError } from '../support/catalog-fixtures.js';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { rowCounts } from '../support/row-counts.js';

/** What a strict client sends at the edges: huge integers, bodies where none belong. */
describe('strict client: bounded integers and body-less actions', () => {
  let w: RoleWorld;
  before(async function () {
    this.timeout(180_000);
    w = await startWithRoles();
  });
  after(() => w?.svc.stop());

  it('a list offset at or past 2^63 (or 2^31) is 400 VALIDATION_ERROR naming offset, not 500', async () => {
    const lists = ['/api/environments', `/api/environments/${w.envId}/vars`, `/api/environments/${w.envId}/external-entities`,
      '/api/audit-logs', `/api/connections?environmentId=${w.envId}`];
    for (const list of lists) {
      const sep = list.includes('?') ? '&' : '?';
      for (const offset of ['9223372036854775808', '9223372036854775807', '2147483648']) {
        expectError(await w.admin.get(`${list}${sep}offset=${offset}`), 400, 'VALIDATION_ERROR', 'offset');
      }
      const last = await w.admin.get(`${list}${sep}offset=2147483647`);
      expect(last.status, `${list} ${last.text}`).to.equal(200);
      expect(last.body.items).to.deep.equal([]);
    }
  });

  it('a query integer is plain decimal digits: 0x10, 1e1, a space, a plus sign, 010 are 400 naming the parameter', async () => {
    const lists = ['/api/environments', `/api/environments/${w.envId}/vars`, '/api/audit-logs', `/api/connections?environmentId=${w.envId}`];
    for (const list of lists) {
      const sep = list.includes('?') ? '&' : '?';
      // %20 and + both decode to a space; %2B is a plus sign
      for (const [name, value] of [['offset', '0x10'], ['offset', '1e1'], ['offset', '010'], ['offset', '1.0'], ['offset', ''],
        ['limit', '%205'], ['limit', '+5'], ['limit', '%2B5'], ['limit', '5%20'], ['limit', '0b101'], ['limit', 'Infinity']]) {
        const res = await w.admin.get(`${list}${sep}${name}=${value}`);
        expectError(res, 400, 'VALIDATION_ERROR', name);
        expect(res.body.message, `${list} ${name}=${value}`).to.match(new RegExp(`^${name} `));
      }
      const ok = await w.admin.get(`${list}${sep}limit=5&offset=0`);
      expect(ok.status, `${list} ${ok.text}`).to.equal(200);
      expect(ok.body).to.include({ limit: 5, offset: 0 });
    }
    // other integer parameters the same
    expectError(await w.admin.get('/api/users/recently-active?withinDays=0x10'), 400, 'VALIDATION_ERROR', 'withinDays');
    expect((await w.admin.get('/api/users/recently-active?withinDays=16')).status).to.equal(200);
  });

  it('a scalar query parameter given as a list (limit[]=1, limit=1&limit=2) is 400 naming it', async () => {
    for (const list of ['/api/environments', `/api/environments/${w.envId}/vars`, '/api/audit-logs']) {
      for (const query of ['limit[]=1', 'limit[0]=1', 'limit=1&limit=2', 'offset[]=0', 'offset=0&offset=0', 'resourceType=vars&resourceType=vars']) {
        const name = query.match(/^\w+/)![0];
        if (name === 'resourceType' && list !== '/api/audit-logs') continue;
        const res = await w.admin.get(`${list}?${query}`);
        expectError(res, 400, 'VALIDATION_ERROR', name);
      }
      expect((await w.admin.get(`${list}?limit=1`)).body.limit, list).to.equal(1);
    }
  });

  it('a JSON body without a content type (POST, PUT, PATCH) is 415 naming Content-Type and changes nothing', async () => {
    // an environment of its own: the var it creates at the end is no other test's business
    const env = await w.admin.post('/api/environments', { name: `no-type-${Date.now()}` });
    expect(env.status, env.text).to.equal(201);
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/api/environments/${env.body.id}/vars`, { key: 'NO_TYPE', value: '1' }],
      ['PATCH', `/api/environments/${env.body.id}`, { description: 'no content type' }],
      ['PUT', `/api/environments/${env.body.id}/diagram-layout`, { nodes: {} }],
    ];
    const before = await rowCounts(w.svc.services.db);
    for (const [method, path, body] of writes) {
      const untyped = await w.admin.request(method, path, body, { noContentType: true });
      expectError(untyped, 415, 'VALIDATION_ERROR', 'Content-Type');
      expect(untyped.body.message, `${method} ${path}`).to.match(/no Content-Type; send application\/json/);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const typed = await w.admin.request(method, path, undefined, { raw: JSON.stringify(body), headers: { 'content-type': type } });
        expectError(typed, 415, 'VALIDATION_ERROR', 'Content-Type');
        expect(typed.body.message).to.include(`'${type}'`);
      }
    }
    expect(await rowCounts(w.svc.services.db)).to.deep.equal(before);
    // the same bodies as application/json go through
    for (const [method, path, body] of writes) {
      const res = await w.admin.request(method, path, body);
      expect(res.status, `${method} ${path} ${res.text}`).to.be.within(200, 201);
    }
  });

  it('a POST with no body needs no content type: actions, and writes whose body fields are all optional', async () => {
    const secret = await w.operator.post(`/api/environments/${w.envId}/secrets`, { key: 'BODYLESS', value: 'v' });
    expect(secret.status, secret.text).to.equal(201);
    for (const path of [`/api/secrets/${secret.body.id}/reveal`, '/api/notifications/read-all', `/api/environments/${w.envId}/settings/general/reset`]) {
      const res = await w.admin.post(path);
      expect(res.status, `${path} ${res.text}`).to.equal(200);
    }
    // a body route (its fields all optional) reached with no body: it runs as with {}
    const preview = await w.operator.post(`/api/environments/${w.envId}/secret-substitutions/preview`);
    expect(preview.status, preview.text).to.equal(200);
    expect(preview.body).to.deep.equal((await w.operator.post(`/api/environments/${w.envId}/secret-substitutions/preview`, {})).body);
  });

  it('an action that takes no body refuses body bytes it cannot read (no or another content type) with 400', async () => {
    for (const opts of [{ noContentType: true }, { headers: { 'content-type': 'text/plain' } }]) {
      const res = await w.admin.request('POST', '/api/notifications/read-all', undefined, { raw: '{"force":true}', ...opts });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message).to.equal('This operation takes no request body');
    }
  });

  it('config-file restore of a revision above 2^31-1 is 400; at the bound it is a plain 404', async () => {
    const file = await w.operator.post(`/api/environments/${w.envId}/config-files`, { name: 'app.conf', content: 'a=1' });
    expect(file.status, file.text).to.equal(201);
    for (const revision of [2147483648, 9223372036854775807]) {
      expectError(await w.operator.post(`/api/config-files/${file.body.id}/restore`, { revision }), 400, 'VALIDATION_ERROR', 'revision');
    }
    expectError(await w.operator.post(`/api/config-files/${file.body.id}/restore`, { revision: 2147483647 }), 404, 'NOT_FOUND');
  });

  it('audit resourceType is one naming (plural kebab) for API and manifest writes; the filter takes it', async () => {
    const env = (await w.admin.get(`/api/environments/${w.envId}`)).body;
    expect((await w.operator.post(`/api/environments/${w.envId}/vars`, { key: 'FROM_API', value: '1' })).status).to.equal(201);
    const applied = await w.admin.post('/api/manifests/apply', { files: [
      { path: 'env.yaml', content: `apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: ${env.name}}\nspec: {}\n` },
      { path: 'var.yaml', content: `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: FROM_MANIFEST, environment: ${env.name}}\nspec: {value: '2'}\n` },
    ] });
    expect(applied.status, applied.text).to.equal(200);
    const vars = await w.admin.get(`/api/audit-logs?resourceType=vars&environmentId=${w.envId}`);
    expect(vars.status, vars.text).to.equal(200);
    expect(vars.body.items.map((e: any) => e.action).sort()).to.deep.equal(['createVar', 'manifest.create']);
    for (const legacy of ['Var', 'chat_channel']) {
      expectError(await w.admin.get(`/api/audit-logs?resourceType=${legacy}`), 400, 'VALIDATION_ERROR', 'resourceType');
    }
    const types: Array<{ resourceType: string }> = await w.svc.services.db('audit_logs').distinct('resourceType');
    for (const { resourceType } of types) expect(resourceType).to.match(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('body-less actions refuse unknown body fields (400 naming the field) and change nothing; no body or {} still works', async () => {
    const secret = await w.operator.post(`/api/environments/${w.envId}/secrets`, { key: 'API_KEY', value: 's3cret-value' });
    expect(secret.status, secret.text).to.equal(201);
    const actions = [
      `/api/secrets/${secret.body.id}/reveal`,
      '/api/notifications/read-all',
      `/api/environments/${w.envId}/settings/general/reset`,
    ];
    const before = await rowCounts(w.svc.services.db);
    for (const path of actions) {
      expectError(await w.admin.post(path, { force: true }), 400, 'VALIDATION_ERROR', 'force');
      expectError(await w.admin.post(path, [1]), 400, 'VALIDATION_ERROR');
    }
    expectError(await w.admin.post(`/api/environments/${w.envId}/ssh-key/check`, { servers: [] }), 400, 'VALIDATION_ERROR', 'servers');
    expect(await rowCounts(w.svc.services.db)).to.deep.equal(before);
    for (const path of actions) {
      expect((await w.admin.post(path)).status, path).to.equal(200);
      expect((await w.admin.post(path, {})).status, path).to.equal(200);
    }
  });
});
