import { expect } from 'chai';
import crypto from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';

describe('environment settings routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
  });
  after(() => svc.stop());

  it('reads defaults, patches only the given fields, and resets', async () => {
    expect((await admin.get(`/api/environments/${envId}/settings/general`)).body).to.deep.equal({ sshUser: 'root' });
    const patched = await admin.patch(`/api/environments/${envId}/settings/data`, { defaultCollectionIntervalSec: 120 });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ defaultCollectionIntervalSec: 120, allowBackupDownload: false });
    expect((await admin.get(`/api/environments/${envId}/settings/data`)).body.defaultCollectionIntervalSec).to.equal(120);
    expect((await admin.post(`/api/environments/${envId}/settings/data/reset`)).body.defaultCollectionIntervalSec).to.equal(300);
  });

  it('answers 404 for an unknown environment or module, 400 naming the field, and FORBIDDEN_ROLE below admin', async () => {
    expect((await admin.get(`/api/environments/${crypto.randomUUID()}/settings/general`)).status).to.equal(404);
    expect((await admin.get('/api/environments/not-a-uuid/settings/general')).status).to.equal(404);
    expect((await admin.get(`/api/environments/${envId}/settings/bogus`)).status).to.equal(404);
    const bad = await admin.patch(`/api/environments/${envId}/settings/data`, { defaultCollectionIntervalSec: 59 });
    expect(bad.body).to.include({ code: 'VALIDATION_ERROR', field: 'defaultCollectionIntervalSec' });
    expect((await admin.patch(`/api/environments/${envId}/settings/general`, { nope: 1 })).body.field).to.equal('nope');
    const { client: operator } = await userWithRole(admin, 'operator');
    expect((await operator.get(`/api/environments/${envId}/settings/general`)).body.code).to.equal('FORBIDDEN_ROLE');
  });
});
