import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { seedSecrets } from '../support/manifest-files.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

const PASSWORD = 'db-manifest-password-321';
const files = (port: number, extra = ''): ManifestFile[] => [
  { path: 'environment.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: data}\nspec: {}\n' },
  { path: 'server.yaml', content: 'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: db1, environment: data}\nspec: {hostname: 10.0.0.5}\n' },
  {
    path: 'database.yaml',
    content: `apiVersion: stevedore/v1
kind: Database
metadata: {name: shop, environment: data}
spec:
  type: postgres
  server: db1
  containerName: shop-pg
  port: ${port}
  databaseName: shop
  username: app
  password:
    valueFrom: {secretRef: SHOP_DB_PASSWORD}
  timezone: Europe/Paris
${extra}`,
  },
];

describe('manifests: Database', function () {
  this.timeout(120_000);
  let svc: TestService;
  let admin: HttpClient;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    // sent to the API, a manifest's secret comes from a Secret of its environment
    await seedSecrets(admin, 'data', { SHOP_DB_PASSWORD: PASSWORD });
  });
  after(() => svc.stop());

  it('applies a Database on its server with a sealed password from a secretRef, then finds nothing to do, then updates', async () => {
    const res = await admin.post('/api/manifests/apply', { files: files(5432) });
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.not.include(PASSWORD);
    const env = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'data');
    const server = (await admin.get(`/api/environments/${env.id}/servers`)).body.items[0];
    const [db] = (await admin.get(`/api/environments/${env.id}/databases`)).body.items;
    expect(db).to.include({ name: 'shop', type: 'postgres', serverId: server.id, containerName: 'shop-pg', port: 5432, hasCredentials: true, timezone: 'Europe/Paris' });
    const row = await svc.services.databaseOps.ctx.databases.findById(db.id);
    expect(svc.services.secretBox.open(row!.passwordEnc!)).to.equal(PASSWORD);
    const again = await admin.post('/api/manifests/apply', { files: files(5432) });
    expect(again.status).to.equal(200);
    expect(JSON.stringify(again.body)).to.not.match(/"(create|update)"[^}]*Database/);
    expect((await admin.post('/api/manifests/apply', { files: files(5433) })).status).to.equal(200);
    expect((await admin.get(`/api/databases/${db.id}`)).body).to.include({ port: 5433, generation: 2 });
    // owned by the manifest: the API may not change it behind the folder's back
    expect((await admin.patch(`/api/databases/${db.id}`, { port: 1 })).status).to.equal(409);
  });

  it('declares backup and drill schedules and retention: the scheduler computes the next runs in the database\'s zone', async () => {
    const schedules = '  backupSchedule: "0 3 * * *"\n  keepLast: 7\n  keepDays: 30\n  drillSchedule: "30 4 * * 0"\n  drillCheckCommand: select 1\n';
    const applied = await admin.post('/api/manifests/apply', { files: files(5434, schedules) });
    expect(applied.status, applied.text).to.equal(200);
    const env = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === 'data');
    const [db] = (await admin.get(`/api/environments/${env.id}/databases`)).body.items;
    expect((await admin.get(`/api/databases/${db.id}/backup-retention`)).body).to.deep.equal({ keepLast: 7, keepDays: 30 });
    await svc.services.databaseOps.tick();
    const backup = (await admin.get(`/api/databases/${db.id}/backup-schedule`)).body;
    expect(backup).to.include({ cron: '0 3 * * *', enabled: true });
    // 03:00 in Paris is 01:00 or 02:00 UTC
    expect(new Date(backup.nextRunAt).getUTCHours()).to.be.oneOf([1, 2]);
    expect(new Date(backup.nextRunAt).getTime()).to.be.greaterThan(Date.now());
    const drill = (await admin.get(`/api/databases/${db.id}/restore-drill`)).body;
    expect(drill).to.include({ cron: '30 4 * * 0', enabled: true, checkCommand: 'select 1' });
    expect(new Date(drill.nextRunAt).getUTCDay()).to.equal(0);
    const again = await admin.post('/api/manifests/apply', { files: files(5434, schedules) });
    expect(JSON.stringify(again.body)).to.not.match(/"(create|update)"[^}]*Database/);
    // a schedule that cannot run is refused with the folder, naming the field; nothing changes
    const bad = await admin.post('/api/manifests/apply', { files: files(5434, schedules.replace('0 3 * * *', '0 25 * * *')) });
    expect(bad.status).to.equal(400);
    expect(bad.body.errors.map((e: { file: string; path: string }) => `${e.file} ${e.path}`)).to.deep.equal(['database.yaml spec/backupSchedule']);
    expect((await admin.get(`/api/databases/${db.id}/backup-schedule`)).body).to.include({ cron: '0 3 * * *', enabled: true });
    // left out of the manifest: no schedule any more
    expect((await admin.post('/api/manifests/apply', { files: files(5434) })).status).to.equal(200);
    expect((await admin.get(`/api/databases/${db.id}/backup-schedule`)).body).to.include({ enabled: false, nextRunAt: null });
  });
});
