import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { EnvironmentsRepository } from '../../controller/store/repositories/environments.js';
import { ServersRepository } from '../../controller/store/repositories/servers.js';
import { createTestDatabase } from '../support/test-database.js';

// The Docker events watches' sync (reconcilers/deployment/deployment-worker.ts) and the proxy
// resync look at the servers listReachableIds names: one without a way in (an SSH server of an
// environment with no key) is not watched.
describe('servers the controller can reach (ServersRepository.listReachableIds)', () => {
  let db: Knex;
  before(async () => {
    db = createKnex(await createTestDatabase(), 2);
  });
  after(async () => {
    await db?.destroy();
  });

  it('lists socket servers and ssh servers of an environment with a key', async () => {
    const environments = new EnvironmentsRepository(db);
    const servers = new ServersRepository(db);
    const [keyed, keyless] = await environments.insertMany([{ name: 'reach-keyed' }, { name: 'reach-keyless' }]);
    await environments.setSshKey(keyed!.id, { sshPrivateKeySealed: 'sealed-key-bytes', sshPublicKey: 'ssh-ed25519 AAAA test', sshKeyFingerprint: 'SHA256:test' });
    const made = await servers.insertMany([
      { environmentId: keyed!.id, name: 'ssh-keyed', hostname: 'a.invalid', sshUser: 'root', dockerMode: 'ssh' as const },
      { environmentId: keyless!.id, name: 'ssh-keyless', hostname: 'b.invalid', sshUser: 'root', dockerMode: 'ssh' as const },
      { environmentId: keyless!.id, name: 'socket-keyless', hostname: 'c.invalid', sshUser: 'root', dockerMode: 'socket' as const, dockerSocketPath: '/tmp/x.sock' },
    ]);
    const reachable = await servers.listReachableIds();
    const nameOf = new Map(made.map((m) => [m.id, m.name]));
    expect(reachable.map((id) => nameOf.get(id)).sort()).to.deep.equal(['socket-keyless', 'ssh-keyed']);
  });
});
