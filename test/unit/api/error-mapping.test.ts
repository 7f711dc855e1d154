import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import pg from 'pg';
import { errorEnvelope } from '../../../api/middleware/errors.js';
import { toAppError } from '../../../api/middleware/error-mapping.js';
import { HostUnreachable, CommandFailed, RemoteFileFailed } from '../../../controller/hosts/errors.js';
import { SshKeyMissing } from '../../../controller/hosts/host-access.js';
import { createKnex } from '../../../controller/store/knex.js';
import { createLogger } from '../../../controller/logger.js';

/** A pg error of a refused connection (nothing listens on port 1). */
async function refusedConnection(): Promise<Error> {
  const client = new pg.Client({ connectionString: 'postgres://x@127.0.0.1:1/x' });
  return client.connect().then(() => { throw new Error('port 1 accepted a connection'); }, (e: Error) => e);
}
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

  it('follows the cause chain: a refused database connection wrapped in other errors is 503, retryable', async () => {
    const refused = await refusedConnection();
    const once = new Error('loading the service failed', { cause: refused });
    const twice = new Error('the deploy could not start', { cause: once });
    for (const [name, err] of [['wrapped once', once], ['wrapped twice', twice]] as const) {
      const mapped = toAppError(err);
      expect(mapped, name).to.include({ code: 'SERVICE_UNAVAILABLE', status: 503, retryable: true });
      expect(mapped?.message, name).to.match(/database/);
    }
    // the wrapper alone is no database fault
    expect(toAppError(new Error('loading the service failed', { cause: new TypeError('x is undefined') }))).to.equal(null);
  });

  it('answers a wrapped database connection error with 503, Retry-After and the envelope', async () => {
    const refused = await refusedConnection();
    const app = new Koa();
    app.use(errorEnvelope(createLogger('silent')) as unknown as Koa.Middleware);
    app.use(() => { throw new Error('listing servers failed', { cause: refused }); });
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/servers`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      expect(await res.json()).to.include({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
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
