import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { createTestDatabase } from '../support/test-database.js';
import { randomBytes } from 'node:crypto';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { configFileHostPath } from '../../controller/deploy/compose/compose-path-rules.js';
import { checkedFetch } from '../support/openapi-check.js';

// Holes found in the security review, each pinned by a test that failed before its fix.
describe('security review: secrets stay out of history, hashes and messages', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let env: { id: string };

  before(async () => {
    const w = await startWithRoles();
    ({ svc, admin, operator, viewer } = w);
    env = w.env;
  });
  after(() => svc.stop());

  it('a value the scanner turned into a secret is gone from the file history, so viewers cannot read it there', async () => {
    const value = 'Zt4qW8mNx2Lp7RvK9c';
    const c = await operator.post(`/api/environments/${env.id}/config-files`, { name: 'legacy.ini', content: `db_password=${value}\n` });
    expect(c.status, c.text).to.equal(201);
    await operator.patch(`/api/config-files/${c.body.id}`, { content: `db_password=${value}\nport=1\n` });
    const pre = await operator.post(`/api/environments/${env.id}/secret-substitutions/preview`, { configFileIds: [c.body.id] });
    const finding = pre.body.files[0].findings[0];
    const made = await operator.post(`/api/environments/${env.id}/secret-substitutions`, {
      substitutions: [{ configFileId: c.body.id, findingId: finding.id, key: 'DB_PASSWORD' }],
    });
    expect(made.status, made.text).to.equal(201);
    const history = await viewer.get(`/api/config-files/${c.body.id}/history`);
    expect(history.status).to.equal(200);
    expect(history.body.items).to.have.length(3);
    expect(history.text).to.not.include(value);
    expect(history.body.items.map((r: { content: string }) => r.content)).to.deep.equal([
      'db_password=${DB_PASSWORD}\nport=1\n', 'db_password=${DB_PASSWORD}\nport=1\n', 'db_password=${DB_PASSWORD}\n',
    ]);
    const stored = await svc.services.db('config_file_revisions').where({ configFileId: c.body.id }).pluck('content');
    expect(stored.join('\n')).to.not.include(value);
    // restoring an old revision cannot bring the plaintext back either
    const restored = await operator.post(`/api/config-files/${c.body.id}/restore`, { revision: 1 });
    expect(restored.status, restored.text).to.equal(200);
    expect(restored.body.content).to.equal('db_password=${DB_PASSWORD}\n');
  });

  it('an Idempotency-Key row keeps no plain hash of a request body that carried a secret value', async () => {
    const path = `/api/environments/${env.id}/secrets`;
    const raw = JSON.stringify({ key: 'PIN', value: '4711' });
    const send = () => checkedFetch(`${svc.url}${path}`, {
      method: 'POST', body: raw,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operator.token}`, 'idempotency-key': 'pin-1' },
    });
    const first = await send();
    expect(first.status).to.equal(201);
    const row = await svc.services.db('idempotency_keys').where({ key: 'pin-1' }).first();
    const guess = (value: string) => createHash('sha256')
      .update(`POST\n${path}\n${Buffer.from(JSON.stringify({ key: 'PIN', value })).toString('base64')}`).digest('hex');
    expect(row.requestHash).to.not.equal(guess('4711'));
    // the keyed hash still recognises the same request
    const again = await send();
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(JSON.stringify(row)).to.not.include('4711');
  });

  it('a failed command shows no env value or password in its error, on the socket-mode (local) path', async () => {
    const host = await admin.post(`/api/environments/${env.id}/servers/register-host`, { name: 'self' });
    expect(host.status, host.text).to.equal(201);
    // `false` ignores its arguments and exits 1: the failure message is built from this argv
    const err = await svc.services.hosts.exec(host.body.id, ['false', '--env', 'API_TOKEN=tok-9f8e7d', '--password', 'pw-1a2b3c'])
      .then(() => null, (e: Error) => e);
    expect(err?.name).to.equal('CommandFailed');
    expect(err!.message).to.include('false --env');
    expect(err!.message).to.not.match(/tok-9f8e7d|pw-1a2b3c/);
    expect(JSON.stringify(err)).to.not.match(/tok-9f8e7d|pw-1a2b3c/);
  });

  it('numbers that JSON or a query string turn into Infinity are a VALIDATION_ERROR naming the field and change nothing', async () => {
    const list = await viewer.get(`/api/environments/${env.id}/secrets?offset=1e999`);
    expect(list.status, list.text).to.equal(400);
    expect(list.body).to.include({ code: 'VALIDATION_ERROR', field: 'offset' });
    const c = await operator.post(`/api/environments/${env.id}/config-files`, { name: 'inf.conf', content: 'a' });
    const raw = (path: string, body: string) => checkedFetch(`${svc.url}${path}`, {
      method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${operator.token}` },
    });
    const restore = await raw(`/api/config-files/${c.body.id}/restore`, '{"revision": 1e999}');
    expect(restore.status).to.equal(400);
    expect(await restore.json()).to.include({ code: 'VALIDATION_ERROR', field: 'revision' });
    const srv = await admin.post(`/api/environments/${env.id}/servers`, { name: 'inf', hostname: 'inf.example.test' });
    const health = await raw(`/api/servers/${srv.body.id}/health`, '{"timeoutMs": -1e999}');
    expect(health.status).to.equal(400);
    expect((await admin.get(`/api/config-files/${c.body.id}`)).body.revision).to.equal(1);
  });

  it('a synced file holding a secret (directly or through a fragment) or a binary asset is 0600 unless a mode is asked for', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stevedore-mode-'));
    try {
      const host = await admin.post(`/api/environments/${env.id}/servers/register-host`, { name: 'self-modes' });
      expect(host.status, host.text).to.equal(201);
      const [service] = await svc.services.db('services').insert({ environmentId: env.id, name: 'modes' }).returning('*');
      const dep = await operator.post(`/api/services/${service.id}/deployments`, { serverId: host.body.id, containerName: 'modes' });
      expect(dep.status, dep.text).to.equal(201);
      expect((await operator.post(`/api/environments/${env.id}/secrets`, { key: 'MODE_TOKEN', value: 'mode-secret-1' })).status).to.equal(201);
      expect((await operator.post(`/api/environments/${env.id}/config-fragments`, { name: 'auth', content: 'token=${MODE_TOKEN}' })).status).to.equal(201);
      const files: Record<string, { content?: string; mode?: string; want: string }> = {
        'direct.conf': { content: 'token=${MODE_TOKEN}\n', want: '600' },
        'via-fragment.conf': { content: '${fragment:auth}\n', want: '600' },
        'plain.conf': { content: 'port=80\n', want: '644' },
        'asked.conf': { content: 'token=${MODE_TOKEN}\n', mode: '0640', want: '640' },
        'cert.p12': { want: '600' },
      };
      for (const [name, f] of Object.entries(files)) {
        let id: string;
        if (f.content !== undefined) {
          const c = await operator.post(`/api/environments/${env.id}/config-files`, { name, content: f.content });
          expect(c.status, c.text).to.equal(201);
          id = c.body.id;
        } else {
          const form = new FormData();
          form.append('file', new Blob([Buffer.from([0, 1, 2, 3])]), name);
          const up = await checkedFetch(`${svc.url}/api/environments/${env.id}/config-files/assets`, { method: 'POST', body: form, headers: { authorization: `Bearer ${operator.token}` } });
          expect(up.status).to.equal(201);
          id = ((await up.json()) as { id: string }).id;
        }
        const att = await operator.post(`/api/config-files/${id}/attachments`, { serviceId: service.id, targetPath: `${dir}/${name}`, ...(f.mode && { mode: f.mode }) });
        expect(att.status, att.text).to.equal(201);
        const sync = await operator.post(`/api/config-files/${id}/sync-all`, {});
        expect(sync.body.status, sync.text).to.equal('succeeded');
      }
      for (const [name, f] of Object.entries(files)) {
        // socket mode: this machine is the server; attached files live under the deployment's directory
        const mode = ((await fs.stat(configFileHostPath('modes', `${dir}/${name}`))).mode & 0o777).toString(8);
        expect(mode, name).to.equal(f.want);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(configFileHostPath('modes', dir), { recursive: true, force: true });
    }
  });
});

describe('a fragment resync survives a controller crash', () => {
  it('a controller that restarts resyncs files whose fragment changed after their last sync', async function () {
    this.timeout(30_000);
    const shared = { DATABASE_URL: await createTestDatabase(), SECRETS_KEY: randomBytes(32).toString('base64'), JWT_SECRET: randomBytes(32).toString('hex') };
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stevedore-resync-'));
    let first: TestService | null = await startTestService(shared);
    let second: TestService | null = null;
    try {
      const admin = await bootstrapAdmin(first.http);
      const env = await createEnvironment(admin);
      const host = await admin.post(`/api/environments/${env.id}/servers/register-host`, { name: 'self' });
      const [service] = await first.services.db('services').insert({ environmentId: env.id, name: 'app' }).returning('*');
      expect((await admin.post(`/api/services/${service.id}/deployments`, { serverId: host.body.id, containerName: 'app' })).status).to.equal(201);
      const frag = await admin.post(`/api/environments/${env.id}/config-fragments`, { name: 'common', content: 'level=1' });
      const file = await admin.post(`/api/environments/${env.id}/config-files`, { name: 'app.conf', content: '${fragment:common}\n' });
      expect((await admin.post(`/api/config-files/${file.body.id}/attachments`, { serviceId: service.id, targetPath: `${dir}/app.conf` })).status).to.equal(201);
      expect((await admin.post(`/api/config-files/${file.body.id}/sync-all`, {})).body.status).to.equal('succeeded');
      expect(await fs.readFile(configFileHostPath('app', `${dir}/app.conf`), 'utf8')).to.equal('level=1\n');
      // what PATCH /api/config-fragments/{id} commits; the controller dies before its in-memory queue runs the resync
      await first.services.db('config_fragments').where({ id: frag.body.id }).update({ content: 'level=2', updatedAt: first.services.db.fn.now() });
      await first.stop();
      first = null;
      second = await startTestService(shared);
      let content = '';
      for (let i = 0; i < 100 && content !== 'level=2\n'; i++) {
        content = await fs.readFile(configFileHostPath('app', `${dir}/app.conf`), 'utf8');
        if (content !== 'level=2\n') await new Promise((r) => setTimeout(r, 50));
      }
      expect(content).to.equal('level=2\n');
    } finally {
      await first?.stop();
      await second?.stop();
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(configFileHostPath('app', dir), { recursive: true, force: true });
    }
  });
});
