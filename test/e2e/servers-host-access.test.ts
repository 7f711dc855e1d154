// services.hosts against the real fleet: the service other features use to reach a server by id.
import { expect } from 'chai';
import { HostKeyMismatch } from '../../controller/hosts/errors.js';
import { SshKeyMissing } from '../../controller/hosts/host-access.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { until } from '../support/until.js';

describe('host access service (services.hosts) against the fleet', () => {
  let svc: TestService;
  let fleet: Fleet;
  let envId: string;
  const ids: Record<string, string> = {};

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService();
    const s = svc.services;
    const [env] = await s.db('environments').insert({ name: 'hosts-e2e' }).returning('*');
    envId = env.id;
    await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(privateKeyOf(fleet.servers[0]!)) });
    for (const f of fleet.servers) {
      const [row] = await s.db('servers').insert({ environmentId: envId, name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user, dockerMode: 'ssh' }).returning('*');
      ids[f.name] = row.id;
    }
  });
  after(() => svc.stop());

  it('runs argv on a server over one pooled connection and pins the host key it saw first', async () => {
    const hosts = svc.services.hosts;
    const a = await hosts.exec(ids.s1!, ['hostname']);
    const b = await hosts.exec(ids.s1!, ['echo', 'two words', '$(touch /tmp/never)']);
    expect(a.stdout.trim()).to.not.equal('');
    expect(b.stdout).to.equal('two words $(touch /tmp/never)\n');
    expect(hosts.pool.connectCount(ids.s1!)).to.equal(1);
    const row = await svc.services.db('servers').where({ id: ids.s1 }).first();
    expect(row.hostKeyFingerprint).to.equal(fleet.servers[0]!.hostKeyFingerprint);
  });

  it('writes a file atomically with its mode, reads it back, and answers null for a missing file', async () => {
    const hosts = svc.services.hosts;
    const file = `/srv/stevedore-hosts-e2e-${Date.now()}/conf.txt`;
    await hosts.writeFile(ids.s2!, file, 'hello\n', { mode: 0o640 });
    expect((await hosts.readFile(ids.s2!, file))!.toString()).to.equal('hello\n');
    expect((await serverExec('s2', ['stat', '-c', '%a', file])).trim()).to.equal('640');
    expect(await hosts.readFile(ids.s2!, `${file}.missing`)).to.equal(null);
  });

  it('gives a dockerode client and the detected compose CLI of a server', async () => {
    const hosts = svc.services.hosts;
    const docker = await hosts.docker(ids.s3!);
    const info = await docker.version();
    expect(info.Version).to.be.a('string');
    const compose = await hosts.compose(ids.s3!);
    expect(['plugin', 'standalone']).to.include(compose.flavor);
    expect((await hosts.exec(ids.s3!, [...compose.argv, 'version'])).code).to.equal(0);
  });

  it('reconnects with new settings after the row changes and refuses a pinned key the server does not present', async () => {
    const hosts = svc.services.hosts;
    await hosts.exec(ids.s1!, ['true']);
    const before = hosts.pool.connectCount(ids.s1!);
    // pin s2's key on s1: the next connection must be refused
    await svc.services.db('servers').where({ id: ids.s1 }).update({ hostKeyFingerprint: fleet.servers[1]!.hostKeyFingerprint });
    const err = await hosts.exec(ids.s1!, ['true']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(HostKeyMismatch);
    expect(before).to.be.greaterThan(0);
    await svc.services.db('servers').where({ id: ids.s1 }).update({ hostKeyFingerprint: fleet.servers[0]!.hostKeyFingerprint });
    expect((await hosts.exec(ids.s1!, ['true'])).code).to.equal(0);
  });

  it('a Docker API call on a connection closed since the pool handed it out opens a fresh one instead of hanging', async () => {
    const hosts = svc.services.hosts;
    const docker = await hosts.docker(ids.s2!);
    expect(String(await docker.ping())).to.equal('OK');
    const before = hosts.pool.connectCount(ids.s2!);
    // closed by this side, as a drop does: the pool hears of it only when the socket's close event comes
    (await hosts.pool.connection(ids.s2!)).end();
    const answer = await Promise.race([docker.ping().then(String),
      new Promise((resolve) => setTimeout(resolve, 15_000, 'no answer within 15 s: the request waits on a closed connection'))]);
    expect(answer).to.equal('OK');
    expect(hosts.pool.connectCount(ids.s2!)).to.equal(before + 1);
    // and its channel slot came back: more calls than the slots a connection has still answer
    for (let i = 0; i < 12; i++) expect(String(await docker.ping())).to.equal('OK');
  });

  it('a server row read before the first pin landed does not close the connection that pinned it', async () => {
    const hosts = svc.services.hosts;
    const f = fleet.servers[2]!;
    const [row] = await svc.services.db('servers').insert({ environmentId: envId, name: 'late-reader', hostname: f.host, sshPort: f.port, sshUser: f.user, dockerMode: 'ssh' }).returning('*');
    const stale = (await svc.services.servers.withEnvironmentKey(row.id))!;
    expect(stale.hostKeyFingerprint).to.equal(null);
    expect((await hosts.exec(row.id, ['true'])).code).to.equal(0); // the first connection pins the key
    const pinned = await hosts.pool.connection(row.id);
    // a command running on that connection (seen on the server), then a look that brings the row read before the pin
    const marker = `/tmp/late-reader-${process.pid}`;
    const inFlight = hosts.exec(row.id, ['sh', '-c', `touch ${marker}; sleep 2; echo done`]);
    await until('the command to run on s3', async () => (await serverExec('s3', ['sh', '-c', `test -e ${marker} && echo yes || true`])).trim() === 'yes',
      { timeoutMs: 10_000, everyMs: 50 });
    await hosts.docker(row.id, stale);
    expect((await inFlight).stdout.trim()).to.equal('done');
    expect(await hosts.pool.connection(row.id), 'the same connection').to.equal(pinned);
    expect(hosts.pool.connectCount(row.id)).to.equal(1);
    // the row is right, and the next connection is still checked against it
    expect((await svc.services.db('servers').where({ id: row.id }).first()).hostKeyFingerprint).to.equal(f.hostKeyFingerprint);
  });

  it('refuses to connect when the environment has no SSH key', async () => {
    await svc.services.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: null });
    const err = await svc.services.hosts.exec(ids.s2!, ['true']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SshKeyMissing);
    await svc.services.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: svc.services.secretBox.seal(privateKeyOf(fleet.servers[0]!)) });
  });
});
