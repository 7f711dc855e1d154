import { expect } from 'chai';
import pg from 'pg';
import { clientClassFor, DatabaseUrlError, parseDatabaseUrl } from '../../../controller/store/database-target.js';
import { isDatabaseUnavailable } from '../../../controller/store/connection-errors.js';
import { closedPort } from '../../support/ports.js';

describe('DATABASE_URL host lists (database-target)', () => {
  it('splits a libpq-style host list and gives node-postgres one host at a time, without target_session_attrs', () => {
    const p = parseDatabaseUrl('postgres://u:p%40ss@db1:5433,db2,[::1]:6000/stevedore?sslmode=verify-full&target_session_attrs=read-write');
    expect(p.hosts).to.deep.equal([{ host: 'db1', port: 5433 }, { host: 'db2', port: 5432 }, { host: '::1', port: 6000 }]);
    expect(p.sessionAttrs).to.equal('read-write');
    expect(p.urlFor(0)).to.equal('postgres://u:p%40ss@db1:5433/stevedore?sslmode=verify-full');
    expect(p.urlFor(1)).to.equal('postgres://u:p%40ss@db2:5432/stevedore?sslmode=verify-full');
    expect(p.urlFor(2)).to.equal('postgres://u:p%40ss@[::1]:6000/stevedore?sslmode=verify-full');
    // node-postgres reads each of them as the host it names
    const { host, port, user, password, database } = new pg.Client({ connectionString: p.urlFor(2) }) as unknown as Record<string, unknown>;
    expect({ host, port, user, password, database }).to.deep.equal({ host: '::1', port: 6000, user: 'u', password: 'p@ss', database: 'stevedore' });
  });

  it('leaves a one-host URL exactly as it was, and a host list without target_session_attrs means any', () => {
    const url = 'postgresql://stevedore:secret@db.internal:5432/stevedore?application_name=x';
    const one = parseDatabaseUrl(url);
    expect(one.hosts).to.deep.equal([{ host: 'db.internal', port: 5432 }]);
    expect(one.urlFor(0)).to.equal(url);
    expect(clientClassFor(url)).to.equal(pg.Client);
    // a socket directory instead of a host, as node-postgres reads it
    for (const socket of ['postgres:///stevedore?host=/run/postgresql', 'postgresql://u@/db?host=/tmp', 'postgres://u@[::1]/db']) {
      expect(parseDatabaseUrl(socket).urlFor(0), socket).to.equal(socket);
      expect(clientClassFor(socket), socket).to.equal(pg.Client);
    }
    expect(parseDatabaseUrl('postgres://a,b/db').sessionAttrs).to.equal('any');
    expect(parseDatabaseUrl('postgres://h1:1,h2:2/db?target_session_attrs=primary').sessionAttrs).to.equal('primary');
    // a one-host URL asking for a writable session is checked too
    expect(clientClassFor('postgres://h1/db?target_session_attrs=read-write')).to.not.equal(pg.Client);
  });

  it('rejects what it cannot honour with an error that does not repeat the password', () => {
    const bad = ['postgres://u:hunter2@h1:5432,h2:99999/db', 'postgres://u:hunter2@h1,,h2/db', 'postgres://u:hunter2@h1:x,h2/db',
      'postgres://u:hunter2@h1,h2/db?target_session_attrs=prefer-standby'];
    for (const url of bad) {
      let thrown: unknown;
      try {
        parseDatabaseUrl(url);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, url).to.be.instanceOf(DatabaseUrlError);
      expect((thrown as Error).message, url).to.match(/^DATABASE_URL: /).and.not.include('hunter2');
    }
  });

  it('a host list where no host answers fails as the database being unreachable (503), naming the hosts only', async () => {
    const a = new URL(await closedPort()).port;
    const b = new URL(await closedPort()).port;
    const Client = clientClassFor(`postgres://u:hunter2@127.0.0.1:${a},127.0.0.1:${b}/db?target_session_attrs=read-write`);
    const client = new Client();
    client.on('error', () => undefined);
    let thrown: unknown;
    await client.connect().catch((e: unknown) => { thrown = e; });
    expect(thrown).to.be.instanceOf(Error);
    expect((thrown as Error).message).to.include(`127.0.0.1:${a}`).and.include(`127.0.0.1:${b}`).and.not.include('hunter2');
    expect(isDatabaseUnavailable(thrown)).to.equal(true);
  });

  it('a write refused by a read-only session (25006) counts as the database being unavailable', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }))).to.equal(true);
  });
});
