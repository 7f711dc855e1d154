import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { useFleet, type FleetEnvironment } from '../support/config-fleet.js';
import { serverCtl, serverExec } from '../fleet/fleet.js';

describe('config files rendered and synced to the fleet', () => {
  let svc: TestService;
  let admin: HttpClient;
  let fe: FleetEnvironment;
  let envId: string;
  const SECRET = `tok-${Math.random().toString(36).slice(2)}-Vz3`;
  const dir = `/srv/stevedore-config-e2e-${Date.now()}`;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    fe = await useFleet(svc, admin, envId);
    expect((await admin.post(`/api/environments/${envId}/secrets`, { key: 'API_TOKEN', value: SECRET })).status).to.equal(201);
    expect((await admin.post(`/api/environments/${envId}/vars`, { key: 'PORT', value: '8080' })).status).to.equal(201);
  });
  after(() => svc.stop());

  // each deployment gets its own copy, under its directory (the container name is the service name
  // here: ${dir}/<service>/...), bind-mounted read-only at the target path inside the container
  const onServer = (path: string) => `/opt/stevedore/deployments/${path.slice(dir.length + 1).split('/')[0]}/files${path}`;
  const readBack = (server: string, path: string) => svc.services.hosts.readFile(fe.serverIds[server], onServer(path));
  const newFile = async (name: string, content: string) => {
    const res = await admin.post(`/api/environments/${envId}/config-files`, { name, content });
    expect(res.status, res.text).to.equal(201);
    return res.body.id as string;
  };
  const attach = async (fileId: string, serviceId: string, targetPath: string) => {
    const res = await admin.post(`/api/config-files/${fileId}/attachments`, { serviceId, targetPath });
    expect(res.status, res.text).to.equal(201);
    return res.body.id as string;
  };

  it('renders a file and writes it to both servers of the service, byte for byte, .env files with mode 0600', async () => {
    const web = await fe.addService('web', ['s1', 's2']);
    const fileId = await newFile('web.env', 'TOKEN=${API_TOKEN}\nPORT=${PORT}\nSHELL_VAR=$${HOME}\n');
    await attach(fileId, web, `${dir}/web/.env`);
    const res = await admin.post(`/api/config-files/${fileId}/sync-all`, {});
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('succeeded');
    expect(res.body.targets.map((t: { serverName: string; status: string }) => [t.serverName, t.status])).to.deep.equal([['s1', 'written'], ['s2', 'written']]);
    expect(res.text).to.not.include(SECRET);
    const expected = Buffer.from(`TOKEN=${SECRET}\nPORT=8080\nSHELL_VAR=\${HOME}\n`);
    for (const s of ['s1', 's2']) {
      expect(Buffer.compare((await readBack(s, `${dir}/web/.env`))!, expected), s).to.equal(0);
      expect((await serverExec(s, ['stat', '-c', '%a', onServer(`${dir}/web/.env`)])).trim()).to.equal('600');
    }
    expect(await readBack('s3', `${dir}/web/.env`)).to.equal(null);
    const again = await admin.post(`/api/config-files/${fileId}/sync-all`, {});
    expect(again.body.targets.map((t: { status: string }) => t.status)).to.deep.equal(['unchanged', 'unchanged']);
    const file = await admin.get(`/api/config-files/${fileId}`);
    expect(file.body.attachments[0].syncState).to.have.length(2);
  });

  it('a dry run answers the unified diff per target from the file on disk, redacts secrets and writes nothing', async () => {
    const [f] = await svc.services.db('config_files').where({ environmentId: envId, name: 'web.env' });
    const path = `${dir}/web/.env`;
    const before = await readBack('s1', path);
    const [port] = await svc.services.db('vars').where({ environmentId: envId, key: 'PORT' });
    await admin.patch(`/api/vars/${port.id}`, { value: '9090' });
    const res = await admin.post(`/api/config-files/${f.id}/sync-all`, { dryRun: true });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.dryRun).to.equal(true);
    const t = res.body.targets[0];
    expect(t.status).to.equal('would-change');
    expect(t.diff).to.equal(`--- a${path}\n+++ b${path}\n@@ -1,3 +1,3 @@\n TOKEN=[REDACTED#1]\n-PORT=8080\n+PORT=9090\n SHELL_VAR=\${HOME}\n`);
    expect(res.text).to.not.include(SECRET);
    expect(Buffer.compare((await readBack('s1', path))!, before!)).to.equal(0);
    expect(Buffer.compare((await readBack('s2', path))!, before!)).to.equal(0);
    // a target not on disk yet diffs against /dev/null
    const web = (await svc.services.db('services').where({ environmentId: envId, name: 'web' }).first()).id;
    const other = await newFile('fresh.conf', 'port ${PORT}\n');
    await attach(other, web, `${dir}/web/fresh.conf`);
    const fresh = await admin.post(`/api/config-files/${other}/sync-all`, { dryRun: true });
    expect(fresh.body.targets[0]).to.include({ status: 'would-create', diff: `--- /dev/null\n+++ b${dir}/web/fresh.conf\n@@ -0,0 +1 @@\n+port 9090\n` });
    expect(await readBack('s1', `${dir}/web/fresh.conf`)).to.equal(null);
  });

  it('syncs per server and per service', async () => {
    const web = (await svc.services.db('services').where({ environmentId: envId, name: 'web' }).first()).id;
    const perServer = await admin.post(`/api/servers/${fe.serverIds.s2}/sync-config`, {});
    expect(perServer.status, perServer.text).to.equal(200);
    expect(perServer.body.targets.every((t: { serverName: string }) => t.serverName === 's2')).to.equal(true);
    expect((await readBack('s2', `${dir}/web/.env`))!.toString()).to.include('PORT=9090');
    expect((await readBack('s1', `${dir}/web/.env`))!.toString()).to.include('PORT=8080');
    const perService = await admin.post(`/api/services/${web}/sync-config`, {});
    expect(perService.body.status).to.equal('succeeded');
    expect((await readBack('s1', `${dir}/web/fresh.conf`))!.toString()).to.equal('port 9090\n');
  });

  it('a fragment edit re-renders and resyncs the attached, already-synced files that include it', async () => {
    const frag = await admin.post(`/api/environments/${envId}/config-fragments`, { name: 'upstream', content: 'server app:${PORT};\n' });
    const api = await fe.addService('api', ['s2', 's3']);
    const fileId = await newFile('nginx.conf', 'upstream app {\n${fragment:upstream}}\n');
    const attachmentId = await attach(fileId, api, `${dir}/api/nginx.conf`);
    expect((await admin.post(`/api/config-attachments/${attachmentId}/sync`, {})).body.status).to.equal('succeeded');
    const upd = await admin.patch(`/api/config-fragments/${frag.body.id}`, { content: 'server app:${PORT} max_fails=3;\n' });
    expect(upd.status, upd.text).to.equal(200);
    expect(upd.body.resync.attachmentIds).to.deep.equal([attachmentId]);
    const want = 'upstream app {\nserver app:9090 max_fails=3;\n}\n';
    for (const s of ['s2', 's3']) {
      let got = '';
      for (let i = 0; i < 100 && got !== want; i++) {
        got = (await readBack(s, `${dir}/api/nginx.conf`))?.toString() ?? '';
        if (got !== want) await new Promise((r) => setTimeout(r, 100));
      }
      expect(got, s).to.equal(want);
    }
  });

  it('a batch whose third target is unwritable restores the first two exactly and says which step failed', async () => {
    const svcId = await fe.addService('batch', ['s1']);
    const existing = `${dir}/batch/existing.conf`;
    const [onDisk, blocker] = [onServer(existing), onServer(`${dir}/batch/blocker`)];
    await serverExec('s1', ['sh', '-c', `mkdir -p ${onDisk.slice(0, onDisk.lastIndexOf('/'))} && printf 'old content\\n' > ${onDisk} && chmod 640 ${onDisk} && touch ${blocker}`]);
    const f1 = await newFile('b1.conf', 'one\n');
    const f2 = await newFile('b2.conf', 'two\n');
    const f3 = await newFile('b3.conf', 'three\n');
    await attach(f1, svcId, existing);
    await attach(f2, svcId, `${dir}/batch/new.conf`);
    await attach(f3, svcId, `${dir}/batch/blocker/app.conf`); // parent is a regular file: unwritable
    const res = await admin.post('/api/sync/batch', { operations: [{ configFileId: f1 }, { configFileId: f2 }, { configFileId: f3 }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ status: 'failed', rolledBack: true });
    expect(res.body.failure).to.include({ configFileId: f3, serverId: fe.serverIds.s1, targetPath: `${dir}/batch/blocker/app.conf` });
    expect(['read', 'write']).to.include(res.body.failure.step);
    expect(res.body.restored.map((r: { targetPath: string; action: string; ok: boolean }) => [r.targetPath, r.action, r.ok])).to.deep.equal([
      [`${dir}/batch/new.conf`, 'removed', true], [existing, 'restored', true],
    ]);
    expect((await readBack('s1', existing))!.toString()).to.equal('old content\n');
    expect((await serverExec('s1', ['stat', '-c', '%a', onDisk])).trim()).to.equal('640');
    expect(await readBack('s1', `${dir}/batch/new.conf`)).to.equal(null);
    const audit = await svc.services.db('audit_logs').where({ action: 'executeSyncBatch' }).first();
    expect(audit.details).to.include({ status: 'failed', failedStep: res.body.failure.step, restored: 2 });
    // the same batch without the broken file goes through
    const ok = await admin.post('/api/sync/batch', { operations: [{ configFileId: f1 }, { configFileId: f2 }] });
    expect(ok.body.status).to.equal('succeeded');
    expect((await readBack('s1', existing))!.toString()).to.equal('one\n');
    expect(svc.logs.join('')).to.not.include(SECRET);
  });

  it('a batch reaching a server that is down restores what it wrote on the others; a single sync reports the target', async () => {
    const svcId = await fe.addService('edge', ['s1', 's3']);
    const fileId = await newFile('edge.conf', 'edge ${PORT}\n');
    await attach(fileId, svcId, `${dir}/edge/edge.conf`);
    await serverCtl('s3', 'stop-ssh');
    try {
      svc.services.hosts.pool.drop(fe.serverIds.s3);
      const res = await admin.post('/api/sync/batch', { operations: [{ configFileId: fileId }] });
      expect(res.body).to.include({ status: 'failed', rolledBack: true });
      expect(res.body.failure).to.include({ serverId: fe.serverIds.s3, step: 'read' });
      expect(res.body.restored).to.deep.equal([{ attachmentId: res.body.targets[0].attachmentId, serverId: fe.serverIds.s1, targetPath: `${dir}/edge/edge.conf`, action: 'removed', ok: true }]);
      expect(await readBack('s1', `${dir}/edge/edge.conf`)).to.equal(null);
      const single = await admin.post(`/api/config-files/${fileId}/sync-all`, {});
      expect(single.body.status).to.equal('partial');
      expect(single.body.targets.map((t: { serverName: string; status: string }) => [t.serverName, t.status])).to.deep.equal([['s1', 'written'], ['s3', 'failed']]);
      expect(single.body.targets[1].error).to.match(/unreachable|refused|connect/i);
    } finally {
      await serverCtl('s3', 'start-ssh');
    }
  });

  it('refuses to sync a file with an unknown placeholder and writes nothing', async () => {
    const web = (await svc.services.db('services').where({ environmentId: envId, name: 'web' }).first()).id;
    const fileId = await newFile('broken.conf', 'x=${NOT_DEFINED}\n');
    await attach(fileId, web, `${dir}/web/broken.conf`);
    const res = await admin.post(`/api/config-files/${fileId}/sync-all`, {});
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'content' });
    expect(res.body.unresolvedKeys).to.deep.equal(['NOT_DEFINED']);
    expect(await readBack('s1', `${dir}/web/broken.conf`)).to.equal(null);
  });
});
