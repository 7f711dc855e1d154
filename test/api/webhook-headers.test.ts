import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { connectMcp, toolJson } from '../support/mcp-client.js';
import { Receiver } from '../support/receiver.js';
import { createTestDatabase } from '../support/test-database.js';
import { createKnex } from '../../controller/store/knex.js';
import { SecretBox } from '../../controller/crypto/secret-box.js';
import { up as sealHeadersMigration } from '../../controller/store/migrations/20261228A-seal-webhook-headers.js';

// Header values planted by the operator: none may come back from any read path.
const PLANTED = 'Bearer planted-header-value-91f3';
const OTHER = 'other-planted-value-27ab';

describe('outgoing webhooks: header values are write-only', () => {
  let w: RoleWorld;
  let mcp: Client;
  const rx = new Receiver();

  before(async () => {
    w = await startWithRoles({ MCP_ENABLED: 'true' });
    mcp = await connectMcp(w.svc.url, w.viewer.token);
    await rx.start();
  });
  after(async () => {
    await mcp?.close();
    await w.svc.stop();
    await rx.stop();
  });
  beforeEach(async () => {
    rx.reset();
    await w.svc.services.db('webhook_subscriptions').delete();
    await w.svc.services.db('outgoing_webhooks').delete();
  });

  it('a subscription shows {name: {set: true}} to a viewer, an operator, an admin and MCP, and stores the value sealed', async () => {
    const created = await w.operator.post(`/api/environments/${w.envId}/webhooks`, {
      name: 'ci', url: rx.url + '/hook', headers: { Authorization: PLANTED, 'X-Team': OTHER },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.headers).to.deep.equal({ Authorization: { set: true }, 'X-Team': { set: true } });
    const id = created.body.id;
    const reads = [created.text];
    for (const who of [w.viewer, w.operator, w.admin]) {
      const list = await who.get(`/api/environments/${w.envId}/webhooks`);
      const one = await who.get(`/api/webhook-subscriptions/${id}`);
      expect(list.status).to.equal(200);
      expect(one.body.headers).to.deep.equal({ Authorization: { set: true }, 'X-Team': { set: true } });
      reads.push(list.text, one.text);
    }
    const tool = await mcp.callTool({ name: 'list_webhook_subscriptions', arguments: { envId: w.envId } });
    expect(toolJson(tool).items[0].headers).to.deep.equal({ Authorization: { set: true }, 'X-Team': { set: true } });
    reads.push(JSON.stringify(tool));
    const audits = await w.admin.get('/api/audit-logs?limit=100');
    reads.push(audits.text, w.svc.logs.join('\n'));
    const events = await w.svc.services.db('events').select('data');
    reads.push(JSON.stringify(events));
    for (const text of reads) {
      expect(text).to.not.include(PLANTED);
      expect(text).to.not.include(OTHER);
    }
    const row = await w.svc.services.db('webhook_subscriptions').where({ id }).first();
    expect(JSON.stringify(row.headers)).to.not.include('planted');
    expect(w.svc.services.secretBox.open(row.headers.Authorization)).to.equal(PLANTED);
  });

  it('delivery and the test send the real header values', async () => {
    const { body: sub } = await w.operator.post(`/api/environments/${w.envId}/webhooks`, {
      name: 'ci', url: rx.url + '/sub', headers: { Authorization: PLANTED },
    });
    const test = await w.operator.post(`/api/webhook-subscriptions/${sub.id}/test`);
    expect(test.status, test.text).to.equal(200);
    expect(rx.requests[0].headers.authorization).to.equal(PLANTED);
    expect(rx.requests[0].headers['content-length'], 'a length, not a chunked body').to.equal(String(Buffer.byteLength(rx.requests[0].body)));
    rx.reset();
    await w.svc.services.events.publish('deployment.success', w.envId, { planName: 'p' });
    await rx.waitFor(() => rx.requests.length >= 1, 5000, 'the delivery');
    expect(rx.requests[0].headers.authorization).to.equal(PLANTED);
  });

  it('PATCH keeps absent headers, replaces given ones and removes those set to null', async () => {
    const { body: sub } = await w.operator.post(`/api/environments/${w.envId}/webhooks`, {
      name: 'ci', url: rx.url + '/p', headers: { Authorization: PLANTED, 'X-Team': 'a', 'X-Gone': 'b' },
    });
    const patched = await w.operator.patch(`/api/webhook-subscriptions/${sub.id}`, { headers: { 'x-team': OTHER, 'X-Gone': null, 'X-New': 'n' } });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.headers).to.deep.equal({ Authorization: { set: true }, 'x-team': { set: true }, 'X-New': { set: true } });
    expect(patched.text).to.not.include(OTHER);
    const other = await w.operator.patch(`/api/webhook-subscriptions/${sub.id}`, { enabled: true });
    expect(other.body.headers).to.deep.equal(patched.body.headers);
    expect((await w.operator.post(`/api/webhook-subscriptions/${sub.id}/test`)).status).to.equal(200);
    expect(rx.requests[0].headers).to.include({ authorization: PLANTED, 'x-team': OTHER, 'x-new': 'n' });
    expect(rx.requests[0].headers).to.not.have.property('x-gone');
    const nullOnCreate = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'n', url: rx.url, headers: { A: null } });
    expect(nullOnCreate.status).to.equal(400);
    expect(nullOnCreate.body).to.include({ code: 'VALIDATION_ERROR' });
  });

  it('admin webhooks show header names only and send the real values', async () => {
    const created = await w.admin.post('/api/admin/webhooks', { name: 'a', url: rx.url + '/admin', enabled: true, headers: { Authorization: PLANTED } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.headers).to.deep.equal({ Authorization: { set: true } });
    const list = await w.admin.get('/api/admin/webhooks');
    const one = await w.admin.get(`/api/admin/webhooks/${created.body.id}`);
    const patched = await w.admin.patch(`/api/admin/webhooks/${created.body.id}`, { headers: { 'X-More': OTHER } });
    expect(patched.body.headers).to.deep.equal({ Authorization: { set: true }, 'X-More': { set: true } });
    for (const text of [created.text, list.text, one.text, patched.text]) expect(text).to.not.include('planted');
    expect((await w.admin.post(`/api/admin/webhooks/${created.body.id}/test`)).status).to.equal(200);
    expect(rx.requests[0].headers).to.include({ authorization: PLANTED, 'x-more': OTHER });
  });
});

describe('migration 20261228A: seals the header values stored in plain text', () => {
  it('turns every plaintext header value into a sealed one the delivery can open', async () => {
    const db = createKnex(await createTestDatabase(), 2);
    try {
      const box = new SecretBox(Buffer.alloc(32, 7));
      const env = (await db('environments').insert({ name: 'mig' }).returning('id'))[0].id;
      await db('webhook_subscriptions').insert({ environmentId: env, name: 's', url: 'https://x.example/h', headers: JSON.stringify({ Authorization: PLANTED }) });
      await db('outgoing_webhooks').insert({ name: 'o', url: 'https://x.example/o', headers: JSON.stringify({ 'X-Team': OTHER }) });
      await sealHeadersMigration(db, { secretBox: box });
      const sub = await db('webhook_subscriptions').first();
      const hook = await db('outgoing_webhooks').first();
      expect(JSON.stringify([sub.headers, hook.headers])).to.not.include('planted');
      expect(box.open(sub.headers.Authorization)).to.equal(PLANTED);
      expect(box.open(hook.headers['X-Team'])).to.equal(OTHER);
    } finally {
      await db.destroy();
    }
  });
});
