import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole, startWithRoles } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { checkedFetch } from '../support/openapi-check.js';

describe('config files, fragments, attachments and history routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let viewer: HttpClient;
  let env: { id: string };
  let serviceId: string;
  const SECRET = `planted-${Math.random().toString(36).slice(2)}-Kx7`;

  before(async () => {
    const w = await startWithRoles();
    ({ svc, admin, operator, viewer } = w);
    env = w.env;
    await operator.post(`/api/environments/${env.id}/secrets`, { key: 'API_TOKEN', value: SECRET });
    await operator.post(`/api/environments/${env.id}/vars`, { key: 'PORT', value: '8080' });
    const [svcRow] = await svc.services.db('services').insert({ environmentId: env.id, name: 'api' }).returning('*');
    serviceId = svcRow.id;
  });
  after(() => svc.stop());

  const create = (name: string, content: string) => operator.post(`/api/environments/${env.id}/config-files`, { name, content });

  it('creates a template and reads it back with placeholders intact and its references', async () => {
    const res = await create('app.conf', 'listen ${PORT}\ntoken ${API_TOKEN}\n${fragment:common}');
    expect(res.status, res.text).to.equal(201);
    expect(res.body).to.include({ kind: 'template', content: 'listen ${PORT}\ntoken ${API_TOKEN}\n${fragment:common}', revision: 1 });
    expect(res.body.references).to.deep.equal({ keys: ['API_TOKEN', 'PORT'], fragments: ['common'] });
    const got = await viewer.get(`/api/config-files/${res.body.id}`);
    expect(got.body.content).to.equal(res.body.content);
    expect(got.body.attachments).to.deep.equal([]);
    const list = await viewer.get(`/api/environments/${env.id}/config-files`);
    expect(list.body.items.map((f: { name: string }) => f.name)).to.include('app.conf');
  });

  it('rejects placeholders with shell metacharacters or lower case, NUL bytes, and names with slashes', async () => {
    for (const content of ['x=${KEY;rm -rf /}', 'x=${$(id)}', 'x=${`id`}', 'x=${lower}', 'x=${OPEN', 'a\u0000b']) {
      const res = await create(`bad-${Math.random()}`, content);
      expect(res.status, content).to.equal(400);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'content' });
    }
    expect((await create('a/b', 'x')).body).to.include({ code: 'VALIDATION_ERROR', field: 'name' });
    expect((await create('app.conf', 'dup')).status).to.equal(409);
    expect((await viewer.post(`/api/environments/${env.id}/config-files`, { name: 'v', content: 'x' })).status).to.equal(403);
    expect((await svc.http.get(`/api/environments/${env.id}/config-files`)).status).to.equal(401);
  });

  it('previews with vars resolved, secret values redacted and unknown placeholders reported, never empty', async () => {
    const [f] = await svc.services.db('config_files').where({ environmentId: env.id, name: 'app.conf' });
    const res = await viewer.get(`/api/config-files/${f.id}/preview`);
    expect(res.status).to.equal(200);
    expect(res.body.content).to.equal('listen 8080\ntoken [REDACTED]\n${fragment:common}');
    expect(res.body.unknownFragments).to.deep.equal(['common']);
    expect(res.text).to.not.include(SECRET);
    const missing = await create('missing.conf', 'a=${NOPE}');
    const pre = await viewer.get(`/api/config-files/${missing.body.id}/preview`);
    expect(pre.body).to.deep.include({ content: 'a=${NOPE}', unresolvedKeys: ['NOPE'] });
  });

  it('fragments: created, shown with their users, 409 on delete or rename while in use, and nested includes rejected', async () => {
    const res = await operator.post(`/api/environments/${env.id}/config-fragments`, { name: 'common', content: 'port=${PORT}\n' });
    expect(res.status, res.text).to.equal(201);
    const nested = await operator.post(`/api/environments/${env.id}/config-fragments`, { name: 'n', content: '${fragment:common}' });
    expect(nested.body).to.include({ code: 'VALIDATION_ERROR', field: 'content' });
    expect((await operator.post(`/api/environments/${env.id}/config-fragments`, { name: 'bad name', content: '' })).body.field).to.equal('name');
    const got = await viewer.get(`/api/config-fragments/${res.body.id}`);
    expect(got.body.usedBy.map((u: { name: string }) => u.name)).to.deep.equal(['app.conf']);
    const del = await operator.delete(`/api/config-fragments/${res.body.id}`);
    expect(del.status).to.equal(409);
    expect(del.body.code).to.equal('CONFLICT');
    expect((await operator.patch(`/api/config-fragments/${res.body.id}`, { name: 'renamed' })).status).to.equal(409);
    const upd = await operator.patch(`/api/config-fragments/${res.body.id}`, { content: 'port=${PORT} # v2\n' });
    expect(upd.status, upd.text).to.equal(200);
    expect(upd.body.resync.configFiles.map((u: { name: string }) => u.name)).to.deep.equal(['app.conf']);
    expect(upd.body.resync.attachmentIds).to.deep.equal([]);
    const [f] = await svc.services.db('config_files').where({ environmentId: env.id, name: 'app.conf' });
    const pre = await viewer.get(`/api/config-files/${f.id}/preview`);
    expect(pre.body.content).to.equal('listen 8080\ntoken [REDACTED]\nport=8080 # v2\n');
    const list = await viewer.get(`/api/environments/${env.id}/config-fragments`);
    expect(list.body.total).to.equal(1);
    const unused = await operator.post(`/api/environments/${env.id}/config-fragments`, { name: 'unused', content: 'x' });
    expect((await operator.delete(`/api/config-fragments/${unused.body.id}`)).status).to.equal(204);
  });

  it('keeps an edit history and restores an earlier revision as a new one', async () => {
    const c = await create('hist.conf', 'v1\n');
    await operator.patch(`/api/config-files/${c.body.id}`, { content: 'v2\n' });
    const renamed = await operator.patch(`/api/config-files/${c.body.id}`, { description: 'no content change' });
    expect(renamed.body.revision).to.equal(2);
    const hist = await viewer.get(`/api/config-files/${c.body.id}/history`);
    expect(hist.body.items.map((r: { revision: number; content: string }) => [r.revision, r.content])).to.deep.equal([[2, 'v2\n'], [1, 'v1\n']]);
    const restored = await operator.post(`/api/config-files/${c.body.id}/restore`, { revision: 1 });
    expect(restored.status, restored.text).to.equal(200);
    expect(restored.body).to.include({ content: 'v1\n', revision: 3 });
    expect((await operator.post(`/api/config-files/${c.body.id}/restore`, { revision: 99 })).status).to.equal(404);
    expect((await operator.post(`/api/config-files/${c.body.id}/restore`, { revision: 'x' })).body.field).to.equal('revision');
    expect((await operator.patch(`/api/config-files/${c.body.id}`, { revision: 5 })).status).to.equal(422);
  });

  it('attaches to a service at an absolute path and rejects relative, .. and NUL paths and foreign services', async () => {
    const [f] = await svc.services.db('config_files').where({ environmentId: env.id, name: 'app.conf' });
    for (const targetPath of ['relative/app.conf', '/etc/../shadow', '/etc/app\u0000.conf', '/etc/app/']) {
      const bad = await operator.post(`/api/config-files/${f.id}/attachments`, { serviceId, targetPath });
      expect(bad.status, targetPath).to.equal(400);
      expect(bad.body).to.include({ code: 'VALIDATION_ERROR', field: 'targetPath' });
    }
    const other = await createEnvironment(admin);
    const [foreign] = await svc.services.db('services').insert({ environmentId: other.id, name: 'x' }).returning('*');
    expect((await operator.post(`/api/config-files/${f.id}/attachments`, { serviceId: foreign.id, targetPath: '/etc/a' })).body.field).to.equal('serviceId');
    const ok = await operator.post(`/api/config-files/${f.id}/attachments`, { serviceId, targetPath: '/etc/api/app.conf', mode: '0640' });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body).to.include({ targetPath: '/etc/api/app.conf', mode: '0640' });
    expect((await operator.post(`/api/config-files/${f.id}/attachments`, { serviceId, targetPath: '/etc/api/app.conf' })).status).to.equal(409);
    const moved = await operator.patch(`/api/config-attachments/${ok.body.id}`, { targetPath: '/etc/api/app2.conf' });
    expect(moved.body.targetPath).to.equal('/etc/api/app2.conf');
    expect((await operator.patch(`/api/config-attachments/${ok.body.id}`, { targetPath: '../x' })).status).to.equal(400);
    expect((await viewer.get(`/api/config-files/${f.id}/attachments`)).body.items).to.have.length(1);
    expect((await viewer.get(`/api/config-attachments/${ok.body.id}`)).status).to.equal(200);
    expect((await operator.delete(`/api/config-attachments/${ok.body.id}`)).status).to.equal(204);
    expect((await viewer.get(`/api/config-attachments/${ok.body.id}`)).status).to.equal(404);
  });

  it('uploads and replaces a binary asset by multipart and keeps its bytes exactly', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 13, 10, 45, 45]);
    const form = new FormData();
    form.append('name', 'cert.der');
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'cert.der');
    const res = await checkedFetch(`${svc.url}/api/environments/${env.id}/config-files/assets`, { method: 'POST', body: form, headers: { authorization: `Bearer ${operator.token}` } });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).to.equal(201);
    expect(body).to.include({ kind: 'asset', size: bytes.length, content: null });
    const stored = await svc.services.db('config_files').where({ id: body.id }).first();
    expect(Buffer.compare(stored.data, bytes)).to.equal(0);
    const form2 = new FormData();
    form2.append('file', new Blob([Buffer.from('new')]), 'x');
    const put = await checkedFetch(`${svc.url}/api/config-files/${body.id}/asset`, { method: 'PUT', body: form2, headers: { authorization: `Bearer ${operator.token}` } });
    expect(put.status).to.equal(200);
    expect(((await put.json()) as { revision: number }).revision).to.equal(2);
    const noFile = await checkedFetch(`${svc.url}/api/config-files/${body.id}/asset`, { method: 'PUT', body: new FormData(), headers: { authorization: `Bearer ${operator.token}` } });
    expect(noFile.status).to.equal(400);
    expect((await operator.patch(`/api/config-files/${body.id}`, { content: 'x' })).status).to.equal(400);
  });

  it('the scanner previews likely secrets masked and turns chosen ones into secrets with placeholders', async () => {
    const value = 'Qm8vR2xT9pLw4zN';
    const c = await create('legacy.conf', `user=admin\npassword=${value}\nport=8080\n`);
    const pre = await operator.post(`/api/environments/${env.id}/secret-substitutions/preview`, { configFileIds: [c.body.id] });
    expect(pre.status, pre.text).to.equal(200);
    const [file] = pre.body.files;
    expect(file.findings.map((f: { name: string }) => f.name)).to.deep.equal(['password']);
    expect(file.substitutedContent).to.equal('user=admin\npassword=${PASSWORD}\nport=8080\n');
    expect(pre.text).to.not.include(value);
    const made = await operator.post(`/api/environments/${env.id}/secret-substitutions`, {
      substitutions: [{ configFileId: c.body.id, findingId: file.findings[0].id, key: 'LEGACY_PASSWORD' }],
    });
    expect(made.status, made.text).to.equal(201);
    expect(made.body.secrets.map((x: { key: string }) => x.key)).to.deep.equal(['LEGACY_PASSWORD']);
    expect((await viewer.get(`/api/config-files/${c.body.id}`)).body.content).to.equal('user=admin\npassword=${LEGACY_PASSWORD}\nport=8080\n');
    const again = await operator.post(`/api/environments/${env.id}/secret-substitutions`, {
      substitutions: [{ configFileId: c.body.id, findingId: file.findings[0].id, key: 'OTHER' }],
    });
    expect(again.body).to.include({ code: 'VALIDATION_ERROR', field: 'substitutions.0.findingId' });
    await admin.patch(`/api/environments/${env.id}/settings/configuration`, { scanEntropyThreshold: 80 });
    const none = await operator.post(`/api/environments/${env.id}/secret-substitutions/preview`, {});
    expect(none.body.files.every((f: { findings: unknown[] }) => f.findings.length === 0)).to.equal(true);
    expect((await viewer.post(`/api/environments/${env.id}/secret-substitutions/preview`, {})).status).to.equal(403);
  });

  it('sync routes answer 404 for unknown ids and a batch refuses files of two environments', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await operator.post(`/api/config-files/${id}/sync-all`, {})).status).to.equal(404);
    expect((await operator.post(`/api/config-attachments/${id}/sync`, {})).status).to.equal(404);
    expect((await operator.post(`/api/services/${id}/sync-config`, {})).status).to.equal(404);
    expect((await operator.post(`/api/servers/${id}/sync-config`, {})).status).to.equal(404);
    const other = await createEnvironment(admin);
    const a = await create('batch-a.conf', 'a');
    const b = await operator.post(`/api/environments/${other.id}/config-files`, { name: 'b', content: 'b' });
    const mixed = await operator.post('/api/sync/batch', { operations: [{ configFileId: a.body.id }, { configFileId: b.body.id }] });
    expect(mixed.body).to.include({ code: 'VALIDATION_ERROR', field: 'operations' });
    expect((await operator.post('/api/sync/batch', { operations: [] })).body.field).to.equal('operations');
    expect((await operator.post('/api/sync/batch', { operations: [{ configFileId: id }] })).body.field).to.equal('operations.0.configFileId');
    expect((await viewer.post('/api/sync/batch', { operations: [{ configFileId: a.body.id }] })).status).to.equal(403);
    const dry = await operator.post(`/api/config-files/${a.body.id}/sync-all`, { dryRun: true });
    expect(dry.body).to.deep.equal({ dryRun: true, status: 'succeeded', targets: [] });
    expect((await operator.post(`/api/config-files/${a.body.id}/sync-all`, { dryRun: 'yes' })).body.field).to.equal('dryRun');
  });

  it('answers 404 for unknown fragments, files and attachments, and 403 to viewers writing them', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const path of [`/api/config-fragments/${id}`, `/api/config-files/${id}`, `/api/config-files/${id}/preview`,
      `/api/config-files/${id}/history`, `/api/config-attachments/${id}`, `/api/config-files/${id}/attachments`]) {
      const res = await viewer.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body.code).to.equal('NOT_FOUND');
    }
    expect((await viewer.post(`/api/environments/${env.id}/config-fragments`, { name: 'x', content: 'y' })).status).to.equal(403);
    const [f] = await svc.services.db('config_files').where({ environmentId: env.id, name: 'app.conf' });
    expect((await viewer.patch(`/api/config-files/${f.id}`, { description: 'x' })).status).to.equal(403);
    expect((await viewer.post(`/api/config-files/${f.id}/attachments`, { serviceId, targetPath: '/etc/x' })).status).to.equal(403);
    expect((await viewer.post(`/api/config-files/${f.id}/sync-all`, { dryRun: true })).status).to.equal(403);
    expect((await svc.http.post(`/api/config-files/${f.id}/sync-all`, {})).status).to.equal(401);
  });

  it('the scanner refuses a key that already exists with 409 naming the substitution', async () => {
    await admin.patch(`/api/environments/${env.id}/settings/configuration`, { scanEntropyThreshold: 25 });
    const c = await create('dup-key.conf', 'secret_key=Jx8rT3wQ9mZ2vB7n\n');
    const pre = await operator.post(`/api/environments/${env.id}/secret-substitutions/preview`, { configFileIds: [c.body.id] });
    const res = await operator.post(`/api/environments/${env.id}/secret-substitutions`, {
      substitutions: [{ configFileId: c.body.id, findingId: pre.body.files[0].findings[0].id, key: 'API_TOKEN' }],
    });
    expect(res.status).to.equal(409);
    expect(res.body).to.include({ code: 'CONFLICT', field: 'substitutions.0.key' });
    expect((await operator.post(`/api/environments/${env.id}/secret-substitutions`, { substitutions: [] })).body.field).to.equal('substitutions');
  });

  it('deleting a config file is 204 and later reads are 404', async () => {
    const c = await create('gone.conf', 'x');
    expect((await operator.delete(`/api/config-files/${c.body.id}`)).status).to.equal(204);
    expect((await viewer.get(`/api/config-files/${c.body.id}`)).status).to.equal(404);
    expect(svc.logs.join('')).to.not.include(SECRET);
  });
});
