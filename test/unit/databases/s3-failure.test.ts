import { expect } from 'chai';
import { s3Failure } from '../../../controller/databases/storage/s3-store.js';
import { isDatabaseUnavailable } from '../../../controller/store/connection-errors.js';

describe('s3Failure: what an S3 call\'s failure means', () => {
  const endpoint = 'https://key:pw@s3.example.test:9000/some/path?x=1';

  it('no HTTP answer (refused, reset, timed out) is unreachable, naming the endpoint\'s origin only', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND']) {
      const e = s3Failure(endpoint, Object.assign(new Error(code), { code, $metadata: { attempts: 1 } }));
      expect(e).to.include({ dependency: 'object storage', kind: 'unreachable', message: 'The object storage at https://s3.example.test:9000 is not reachable' });
      expect(isDatabaseUnavailable(e), 'its socket error is not the database\'s').to.equal(false);
    }
  });

  it('an answer the SDK cannot read as S3 is a bad answer that says it is not S3', () => {
    const parse = Object.assign(new Error('@aws-sdk XML parse error: unexpected content.\n  Deserialization error: ...'), { $metadata: { httpStatusCode: 200 } });
    const e = s3Failure(endpoint, parse);
    expect(e.kind).to.equal('bad-answer');
    expect(e.message).to.equal('The object storage at https://s3.example.test:9000 did not answer as S3 (HTTP 200)');
  });

  it('an S3 error answer keeps its status and error name', () => {
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } });
    expect(s3Failure(endpoint, denied)).to.include({ kind: 'bad-answer', message: 'The object storage at https://s3.example.test:9000 answered HTTP 403 (AccessDenied)' });
  });
});
