import type { TestService } from './test-service.js';
import { loadFleet, privateKeyOf, type Fleet } from '../fleet/fleet.js';

export interface FleetEnvironment {
  fleet: Fleet;
  serverIds: Record<string, string>;
  /** A service with one deployment per named server (rows inserted directly: the catalog API is another branch's). */
  addService(name: string, servers: string[]): Promise<string>;
}

/** Points an environment at the local test fleet: its SSH key and one server row per fleet server. */
export async function useFleet(svc: TestService, environmentId: string): Promise<FleetEnvironment> {
  const fleet = loadFleet();
  const db = svc.services.db;
  await db('environments').where({ id: environmentId })
    .update({ sshPrivateKeySealed: svc.services.secretBox.seal(privateKeyOf(fleet.servers[0]!)) });
  const serverIds: Record<string, string> = {};
  for (const f of fleet.servers) {
    const [row] = await db('servers').insert({
      environmentId, name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user, dockerMode: 'ssh',
    }).returning('*');
    serverIds[f.name] = row.id;
  }
  return {
    fleet,
    serverIds,
    async addService(name, servers) {
      const [service] = await db('services').insert({ environmentId, name }).returning('*');
      for (const s of servers) {
        await db('deployments').insert({ serviceId: service.id, environmentId, serverId: serverIds[s], containerName: name });
      }
      return service.id;
    },
  };
}
