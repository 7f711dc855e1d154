import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { SMTPServer } from 'smtp-server';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { Receiver } from '../support/receiver.js';

// The entrances beyond webhooks, chat, registries and storage (outgoing-guard.test.ts) that connect
// to an address an admin or operator gives: SMTP, the error tracker, a host/port database's check.
// The service starts without the tests' usual loopback allowance (OUTGOING_ALLOW_LIST empty), and
// every target below listens on loopback: a connection that reaches it went around the guard.
describe('outgoing guard: SMTP, error tracking and database checks go through it too', function () {
  this.timeout(60_000);
  let w: RoleWorld;
  const rx = new Receiver();
  let smtp: SMTPServer;
  let smtpPort: number;
  let smtpSessions = 0;
  let mails = 0;
  const allow = async (list: string[] | null) => {
    const res = await w.admin.patch('/api/settings/system', { outgoingAllowList: list });
    expect(res.status, res.text).to.equal(200);
  };

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
      onConnect(_session, cb) { smtpSessions++; cb(); },
      onData(stream, _session, cb) { stream.on('data', () => {}); stream.on('end', () => { mails++; cb(); }); },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    await rx.start();
    w = await startWithRoles({ OUTGOING_ALLOW_LIST: '' });
  });
  after(async () => {
    await w?.svc.stop();
    await rx.stop();
    await new Promise<void>((r) => smtp.close(() => r()));
  });
  beforeEach(() => allow(null));

  it('SMTP: a loopback host is refused when saved (400 on host) and when sending, without a connection', async () => {
    for (const host of ['127.0.0.1', '::1', '[::1]', 'localhost', '169.254.169.254', '0.0.0.0']) {
      const res = await w.admin.put('/api/admin/smtp', { host, port: smtpPort, fromAddress: 'ops@example.test' });
      expect(res.status, `${host}: ${res.text}`).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'host' });
      expect(res.body.message).to.include('refused');
    }
    expect((await w.admin.get('/api/admin/smtp')).status, 'nothing was saved').to.equal(404);

    // allowed on purpose, saved and working; then the allowance is withdrawn
    await allow(['127.0.0.1']);
    const saved = await w.admin.put('/api/admin/smtp', { host: '127.0.0.1', port: smtpPort, fromAddress: 'ops@example.test' });
    expect(saved.status, saved.text).to.equal(200);
    const sent = await w.admin.post('/api/admin/smtp/test', { to: 'someone@example.test' });
    expect(sent.status, sent.text).to.equal(200);
    expect(mails).to.equal(1);
    await allow(null);
    const sessions = smtpSessions;
    expect((await w.admin.put('/api/admin/smtp', { host: '127.0.0.1', port: smtpPort, fromAddress: 'ops@example.test' })).status).to.equal(400);
    // the pooled connection made while it was allowed goes: the next send connects anew
    w.svc.services.smtp.close();
    const refused = await w.admin.post('/api/admin/smtp/test', { to: 'someone@example.test' });
    expect(refused.status, refused.text).to.equal(502);
    expect(refused.body.message).to.include('refused').and.include('loopback');
    expect(smtpSessions, 'the SMTP server was never contacted').to.equal(sessions);
    expect(mails).to.equal(1);
  });

  it('error tracking: a loopback DSN is refused when saved (400 on dsn) and when sending, without a request', async () => {
    const dsn = `http://publickey123@127.0.0.1:${new URL(rx.url).port}/42`;
    const res = await w.admin.put('/api/admin/error-tracking', { dsn });
    expect(res.status, res.text).to.equal(400);
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'dsn' });
    expect(res.text).to.not.include('publickey123');
    expect((await w.admin.get('/api/admin/error-tracking')).body).to.include({ configured: false });

    await allow(['127.0.0.1']);
    expect((await w.admin.put('/api/admin/error-tracking', { dsn })).status).to.equal(200);
    rx.reset();
    expect((await w.admin.post('/api/admin/error-tracking/test')).status).to.equal(200);
    expect(rx.requests).to.have.length(1);
    await allow(null);
    rx.reset();
    const refused = await w.admin.post('/api/admin/error-tracking/test');
    expect(refused.status, refused.text).to.equal(502);
    expect(refused.body.message).to.include('refused').and.include('loopback');
    expect(rx.requests, 'the tracker was never contacted').to.deep.equal([]);
  });

  it('a host/port database\'s check does not connect to a loopback address unless allowed', async () => {
    let connections = 0;
    const listener = net.createServer((c) => { connections++; c.end(); }).listen(0, '127.0.0.1');
    await new Promise((r) => listener.once('listening', r));
    try {
      const port = (listener.address() as AddressInfo).port;
      const created = await w.operator.post(`/api/environments/${w.envId}/databases`, { name: 'loop', type: 'postgres', databaseName: 'app', host: '127.0.0.1', port });
      expect(created.status, created.text).to.equal(201);
      const refused = await w.operator.post(`/api/databases/${created.body.id}/test`);
      expect(refused.status, refused.text).to.equal(200);
      expect(refused.body.ok).to.equal(false);
      expect(refused.body.message).to.include('refused').and.include('loopback');
      const byName = await w.operator.post(`/api/environments/${w.envId}/databases`, { name: 'loop-name', type: 'postgres', databaseName: 'app', host: 'localhost', port });
      expect((await w.operator.post(`/api/databases/${byName.body.id}/test`)).body.message).to.include('refused');
      expect(connections, 'nothing reached the port').to.equal(0);

      await allow(['127.0.0.1']);
      expect((await w.operator.post(`/api/databases/${created.body.id}/test`)).body).to.include({ ok: true });
      expect(connections).to.equal(1);
    } finally {
      listener.close();
    }
  });
});
