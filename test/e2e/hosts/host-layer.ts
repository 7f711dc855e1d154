// Shared set-up for the host-layer e2e tests: the real pool, driver and Docker clients pointed
// at the fleet test/fleet/up.sh started.
import { randomBytes } from 'node:crypto';
import { DockerClients } from '../../../controller/hosts/docker-client.js';
import { SshPool, type SshPoolOptions } from '../../../controller/hosts/ssh-pool.js';
import { SshDriver } from '../../../controller/hosts/ssh-driver.js';
import { loadFleet, privateKeyOf, toHostServer, type Fleet } from '../../fleet/fleet.js';

export interface HostLayer {
  fleet: Fleet;
  pool: SshPool;
  driver: SshDriver;
  docker: DockerClients;
  names: string[];
}

export function hostLayer(opts: SshPoolOptions = {}): HostLayer {
  const fleet = loadFleet();
  // the pool's own handshake deadline (5 s), as the controller runs it: 3 s was missed under load
  const pool = new SshPool(opts);
  for (const s of fleet.servers) pool.register(toHostServer(s), privateKeyOf(s));
  return { fleet, pool, driver: new SshDriver(pool, 15_000), docker: new DockerClients(pool), names: fleet.servers.map((s) => s.name) };
}

/** A scratch dir name on the servers (/srv, like /etc, /opt and /tmp, is private to each server). */
export const scratchDir = (): string => `/srv/stevedore-e2e-${randomBytes(4).toString('hex')}`;
