import { expect } from 'chai';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';
import { startS3Server, type S3Server } from '../support/s3-server.js';
import { closedPort, garbageServer } from '../support/ports.js';

describe('object storage faults: answers name the object storage, never 500 or the database', function () {
  this.timeout(120_000);
  let w: RoleWorld;
  let s3: S3Server;
  const save = async (endpoint: string) => {
    const res = await w.admin.put('/api/settings/storage-space', {
      endpoint, region: 'us-east-1', bucket: 'backups', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true,
    });
    expect(res.status, res.text).to.equal(200);
  };
  const bucketLists = () => [
    w.admin.get('/api/settings/storage-space/buckets'),
    w.admin.get(`/api/environments/${w.envId}/storage/buckets`),
  ];
  const tests = () => [w.admin.post('/api/settings/storage-space/test'), w.admin.post(`/api/environments/${w.envId}/storage/test`)];

  before(async () => {
    w = await startWithRoles();
    s3 = await startS3Server(['backups']);
  });
  after(async () => {
    await w?.svc.stop();
    await s3?.stop();
  });

  for (const [kind, body, type] of [['text', 'hello, this is not S3', 'text/plain'], ['HTML', '<html><body>a login page</body></html>', 'text/html']]) {
    it(`an endpoint answering ${kind} instead of S3: bucket lists 502 naming the object storage, the tests say it is not S3`, async () => {
      const garbage = await garbageServer(body, type);
      try {
        await save(garbage.url);
        for (const res of await Promise.all(bucketLists())) {
          expect(res.status, res.text).to.equal(502);
          expect(res.body.code).to.equal('SERVICE_UNAVAILABLE');
          expect(res.body.message).to.include('object storage').and.include('not answer as S3');
          expect(res.text).not.to.include('S3RVER');
        }
        for (const res of await Promise.all(tests())) {
          expect(res.status, res.text).to.equal(200);
          expect(res.body.ok).to.equal(false);
          expect(res.body.message).to.include('not answer as S3');
        }
      } finally {
        await garbage.stop();
      }
    });
  }

  it('an unreachable endpoint: bucket lists 503 "object storage … not reachable" (not the database), the tests say unreachable', async () => {
    await save(await closedPort());
    for (const res of await Promise.all(bucketLists())) {
      expect(res.status, res.text).to.equal(503);
      expect(res.body.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.body.message).to.match(/object storage at http:\/\/127\.0\.0\.1:\d+ is not reachable/);
      expect(res.body.message).not.to.include('database');
      expect(res.headers.get('retry-after')).to.be.a('string');
    }
    for (const res of await Promise.all(tests())) {
      expect(res.body).to.deep.include({ ok: false });
      expect(res.body.message).to.include('unreachable');
    }
    expect((await w.svc.http.get('/health')).status, 'the database is fine all along').to.equal(200);
  });

  it('a real S3 server still passes the test through a signed list of the bucket', async () => {
    await save(s3.endpoint);
    for (const res of await Promise.all(tests())) expect(res.body, JSON.stringify(res.body)).to.include({ ok: true });
    const missing = await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: true, bucket: 'missing-bucket' });
    expect(missing.status).to.equal(200);
    const res = await w.admin.post(`/api/environments/${w.envId}/storage/test`);
    expect(res.body.ok).to.equal(false);
    expect(res.body.message).to.include('missing-bucket').and.include('404');
    await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: false, bucket: null });
  });
});
