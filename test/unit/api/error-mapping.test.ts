import { expect } from 'chai';
import pg from 'pg';
import { toAppError } from '../../../api/middleware/error-mapping.js';
import { HostUnreachable, CommandFailed, RemoteFileFailed } from '../../../controller/hosts/errors.js';
import { SshKeyMissing } from '../../../controller/hosts/host-access.js';
import { createKnex } from '../../../controller/store/knex.js';
import { DependencyError } from '../../../controller/errors/dependency-error.js';

describe('error mapping (one cause, one status)', () => {
  it('maps a refused database connection (pg and knex) to 503 SERVICE_UNAVAILABLE', async () => {
    const client = new pg.Client({ connectionString: 'postgres://x@127.0.0.1:1/x' });
    const err = await client.connect().then(() => null, (e) => e);
    expect(toAppError(err)?.status).to.equal(503);
    const db = createKnex('postgres://x@127.0.0.1:1/x');
    const viaKnex = await db.raw('select 1').then(() => null, (e) => e);
    await db.destroy();
    const mapped = toAppError(viaKnex);
    expect(mapped?.code).to.equal('SERVICE_UNAVAILABLE');
    expect(mapped?.message).to.match(/database/);
  });

  it('maps host errors by cause: settings 409, unreachable 503, failed command 502', () => {
    expect(toAppError(new SshKeyMissing('s1'))?.status).to.equal(409);
    expect(toAppError(new HostUnreachable('s1', 'timeout'))?.status).to.equal(503);
    expect(toAppError(new CommandFailed('s1', 'docker ps', 1, 'boom'))?.status).to.equal(502);
    expect(toAppError(new RemoteFileFailed('s1', 'write', '/etc/x', 'permission denied'))?.status).to.equal(502);
  });

  it('maps a dependency\'s failure to it, through the cause chain: unreachable 503, a bad answer 502, never the database', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const unreachable = toAppError(new DependencyError('object storage', 'unreachable', 'The object storage at http://s3.test is not reachable', { cause: refused }));
    expect(unreachable).to.include({ status: 503, code: 'SERVICE_UNAVAILABLE', retryable: true });
    expect(unreachable!.message).to.equal('The object storage at http://s3.test is not reachable');
    const wrapped = new Error('listing failed', { cause: new DependencyError('object storage', 'bad-answer', 'not S3', { cause: refused }) });
    expect(toAppError(wrapped)).to.include({ status: 502, message: 'not S3' });
    const dbUnderneath = new Error('query failed', { cause: refused });
    expect(toAppError(dbUnderneath)?.message, 'a bare socket error is still the database').to.match(/database/);
  });

  it('leaves an unexpected error to be a 500', () => {
    expect(toAppError(new TypeError('x is undefined'))).to.equal(null);
  });
});
