import { expect } from 'chai';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { EnvironmentsRepository } from '../../controller/store/repositories/environments.js';
import { ServersRepository } from '../../controller/store/repositories/servers.js';
import { createTestDatabase } from '../support/test-database.js';

// The Docker events watches open with the rows listReachable read (reconcilers/deployment/
// deployment-worker.ts) instead of reading each server's row again: those rows must be what
// withEnvironmentKeys reads, key included, or a watch would reach its server with other settings.
describe('servers the controller can reach (ServersRepository.listReachable)', () => {
  let db: Knex;
  before(async () => {
    db = createKnex(await createTestDatabase(), 2);
  });
  after(async () => {
    await db?.destroy();
  });

  it('lists socket servers and ssh servers of an environment with a key, each as withEnvironmentKeys reads it', async () => {
    const environments = new EnvironmentsRepository(db);
    const servers = new ServersRepository(db);
    const [keyed, keyless] = await environments.insertMany([{ name: 'reach-keyed' }, { name: 'reach-keyless' }]);
    await environments.setSshKey(keyed!.id, { sshPrivateKeySealed: 'sealed-key-bytes', sshPublicKey: 'ssh-ed25519 AAAA test', sshKeyFingerprint: 'SHA256:test' });
    const made = await servers.insertMany([
      { environmentId: keyed!.id, name: 'ssh-keyed', hostname: 'a.invalid', sshUser: 'root', dockerMode: 'ssh' as const },
      { environmentId: keyless!.id, name: 'ssh-keyless', hostname: 'b.invalid', sshUser: 'root', dockerMode: 'ssh' as const },
      { environmentId: keyless!.id, name: 'socket-keyless', hostname: 'c.invalid', sshUser: 'root', dockerMode: 'socket' as const, dockerSocketPath: '/tmp/x.sock' },
    ]);
    const reachable = await servers.listReachable();
    expect(reachable.map((r) => r.name).sort()).to.deep.equal(['socket-keyless', 'ssh-keyed']);
    const byId = (rows: Array<{ id: string }>) => new Map(rows.map((r) => [r.id, r]));
    const read = byId(await servers.withEnvironmentKeys(made.map((m) => m.id)));
    for (const r of reachable) expect(r).to.deep.equal(read.get(r.id));
    expect(reachable.find((r) => r.name === 'ssh-keyed')!.sshPrivateKeySealed).to.equal('sealed-key-bytes');
  });
});
