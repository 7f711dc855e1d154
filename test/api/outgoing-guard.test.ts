import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';
import { closedPort, notHttpPort } from '../support/ports.js';

/** An HTTP server answering every request with a redirect to `to` (plus the request's path). */
async function redirector(to: string) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url!);
    req.resume();
    res.writeHead(302, { location: to + req.url }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

// The service starts without the tests' usual loopback allowance (OUTGOING_ALLOW_LIST empty).
describe('outgoing guard: operator-set URLs may not aim at loopback, link-local or the controller', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  const rx = new Receiver();
  const allow = async (list: string[] | null) => {
    const res = await w.admin.patch('/api/settings/system', { outgoingAllowList: list });
    expect(res.status, res.text).to.equal(200);
  };
  const FORBIDDEN = ['http://127.0.0.1:9/hook', 'http://[::1]:9/', 'http://169.254.169.254/latest/meta-data', 'http://[::ffff:127.0.0.1]:9/',
    'http://[::ffff:7f00:1]:9/', 'http://0.0.0.0:9/', 'http://[fe80::1]:9/', 'http://2130706433:9/', 'http://localhost:9/'];

  before(async () => {
    w = await startWithRoles({ OUTGOING_ALLOW_LIST: '' });
    await rx.start();
  });
  after(async () => {
    await w?.svc.stop();
    await rx.stop();
  });
  beforeEach(async () => {
    rx.reset();
    await allow(null);
    await w.svc.services.db('webhook_subscriptions').delete();
    await w.svc.services.db('outgoing_webhooks').delete();
    await w.svc.services.db('chat_channels').delete();
  });

  it('refuses loopback, link-local, unspecified, IPv4-mapped and names resolving to them on every kind of target: 400 naming the field', async () => {
    for (const url of FORBIDDEN) {
      const answers = [
        [await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'x', url }), 'url'],
        [await w.admin.post('/api/admin/webhooks', { name: 'x', url, enabled: true }), 'url'],
        [await w.admin.post('/api/admin/chat-channels', { name: 'x', webhookUrl: url }), 'webhookUrl'],
        [await w.operator.post(`/api/environments/${w.envId}/registries`, { name: 'x', type: 'generic', registryUrl: url }), 'registryUrl'],
        [await w.admin.put('/api/settings/storage-space', { endpoint: url, region: 'r', bucket: 'b', accessKeyId: 'k', secretAccessKey: 's' }), 'endpoint'],
      ] as const;
      for (const [res, field] of answers) {
        expect(res.status, `${url} ${field}: ${res.text}`).to.equal(400);
        expect(res.body).to.include({ code: 'VALIDATION_ERROR', field });
        expect(res.body.message).to.include('refused');
      }
    }
    const { body: sub } = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'ok', url: 'https://hooks.example.com/x' });
    const patched = await w.operator.patch(`/api/webhook-subscriptions/${sub.id}`, { url: 'http://127.0.0.1:9/' });
    expect(patched.body).to.include({ code: 'VALIDATION_ERROR', field: 'url' });
    // a registry URL without a scheme is read as https://host:port
    const bare = await w.operator.post(`/api/environments/${w.envId}/registries`, { name: 'bare', type: 'generic', registryUrl: '127.0.0.1:5000' });
    expect(bare.body).to.include({ code: 'VALIDATION_ERROR', field: 'registryUrl' });
  });

  it('refuses an address of the controller\'s own interfaces that is not loopback, unless allowed', async () => {
    const own = Object.values(os.networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4');
    expect(own, 'this host has an address besides loopback').to.not.equal(undefined);
    const url = `http://${own!.address}:9/hook`;
    const refused = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'own', url });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.message).to.include('own address');
    await allow([own!.address]);
    expect((await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'own', url })).status).to.equal(201);
  });

  it('a target stored before (or whose name now resolves to loopback) is refused at send time: nothing reaches the port', async () => {
    const [sub] = await w.svc.services.db('webhook_subscriptions')
      .insert({ environmentId: w.envId, name: 'planted', url: rx.url + '/planted', headers: '{}', eventTypes: '[]' }).returning('*');
    const test = await w.operator.post(`/api/webhook-subscriptions/${sub.id}/test`);
    expect(test.status, test.text).to.equal(502);
    expect(test.body.message).to.include('not contacted').and.include('loopback');
    await w.admin.patch('/api/settings/system', { webhookMaxRetries: 1 });
    await w.svc.services.events.publish('deployment.success', w.envId, {});
    const [delivery] = await until('the delivery to fail', async () => {
      const items = (await w.viewer.get(`/api/webhook-subscriptions/${sub.id}/deliveries`)).body.items;
      return items.length && items[0].status === 'failed' && items;
    });
    expect(delivery.lastError).to.include('refused').and.include('loopback');
    expect(rx.requests).to.deep.equal([]);
  });

  it('the admin allow-list permits a local relay by CIDR or by host name, and refuses entries that are neither', async () => {
    await allow(['127.0.0.0/8']);
    const created = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'relay', url: rx.url + '/relay' });
    expect(created.status, created.text).to.equal(201);
    expect((await w.operator.post(`/api/webhook-subscriptions/${created.body.id}/test`)).status).to.equal(200);
    const chat = await w.admin.post('/api/admin/chat-channels', { name: 'relay', webhookUrl: rx.url + '/chat' });
    expect(chat.status, chat.text).to.equal(201);
    expect((await w.admin.post(`/api/admin/chat-channels/${chat.body.id}/test`)).status).to.equal(200);
    // the test pings (the subscription also gets the environment's events as they happen)
    expect(rx.requests.filter((r) => r.path === '/chat' || r.json?.event === 'test').map((r) => r.path)).to.deep.equal(['/relay', '/chat']);

    await allow(['localhost']);
    const byName = rx.url.replace('127.0.0.1', 'localhost') + '/by-name';
    const named = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'named', url: byName });
    expect(named.status, named.text).to.equal(201);
    expect((await w.operator.post(`/api/webhook-subscriptions/${named.body.id}/test`)).status).to.equal(200);
    // the name is allowed, not the address: the literal stays refused
    expect((await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'lit', url: rx.url })).status).to.equal(400);

    const bad = await w.admin.patch('/api/settings/system', { outgoingAllowList: ['127.0.0.1', 'not a host/99'] });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ code: 'VALIDATION_ERROR', field: 'outgoingAllowList.1' });
    expect((await w.viewer.get('/api/settings/system')).body.outgoingAllowList).to.deep.equal(['localhost']);
    expect((await w.operator.patch('/api/settings/system', { outgoingAllowList: [] })).status).to.equal(403);
  });

  it('every redirect is checked: a webhook never follows one, a registry follows only to allowed addresses', async () => {
    await allow(['localhost']);
    const hop = await redirector(rx.url);
    try {
      const from = `http://localhost:${hop.port}`;
      const { body: sub } = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: 'redir', url: from + '/hook' });
      const test = await w.operator.post(`/api/webhook-subscriptions/${sub.id}/test`);
      expect(test.status).to.equal(502);
      expect(test.body.message).to.equal('The receiver answered 302');
      const reg = await w.operator.post(`/api/environments/${w.envId}/registries`, { name: 'redir', type: 'generic', registryUrl: from });
      expect(reg.status, reg.text).to.equal(201);
      const verdict = await w.admin.post(`/api/registries/${reg.body.id}/test`);
      expect(verdict.status, verdict.text).to.equal(200);
      expect(verdict.body).to.include({ ok: false, reachable: false });
      expect(verdict.body.message).to.include('not contacted').and.include('loopback');
      expect(hop.seen).to.deep.equal(['/hook', '/v2/']);
      expect(rx.requests, 'the redirect target got nothing').to.deep.equal([]);
    } finally {
      await hop.stop();
    }
  });

  it('tests of a target never tell a closed port from a non-HTTP one: the same "unreachable" for webhooks, chat, registries and storage', async () => {
    await allow(['127.0.0.1']);
    const other = await notHttpPort();
    try {
      const messages: string[][] = [];
      for (const url of [await closedPort(), other.url]) {
        const { body: sub } = await w.operator.post(`/api/environments/${w.envId}/webhooks`, { name: `p${messages.length}`, url });
        const { body: chat } = await w.admin.post('/api/admin/chat-channels', { name: `p${messages.length}`, webhookUrl: url });
        const { body: reg } = await w.operator.post(`/api/environments/${w.envId}/registries`, { name: `p${messages.length}`, type: 'generic', registryUrl: url });
        const saved = await w.admin.put('/api/settings/storage-space', { endpoint: url, region: 'r', bucket: 'b', accessKeyId: 'k', secretAccessKey: 's' });
        expect(saved.status, saved.text).to.equal(200);
        const answers = [
          await w.operator.post(`/api/webhook-subscriptions/${sub.id}/test`),
          await w.admin.post(`/api/admin/chat-channels/${chat.id}/test`),
          await w.admin.post(`/api/registries/${reg.id}/test`),
          await w.admin.post('/api/settings/storage-space/test'),
        ];
        messages.push(answers.map((a) => `${a.status} ${a.body.message.replace(/127\.0\.0\.1:\d+/, 'HOST')}`));
      }
      expect(messages[0]).to.deep.equal([
        '502 The receiver is unreachable', '502 The chat endpoint is unreachable', '200 HOST is unreachable', '200 the object storage at http://HOST is unreachable',
      ]);
      expect(messages[1], 'the non-HTTP port answers exactly as the closed one').to.deep.equal(messages[0]);
    } finally {
      await other.stop();
    }
  });
});
