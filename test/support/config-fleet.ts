import { expect } from 'chai';
import type { TestService } from './test-service.js';
import type { HttpClient } from './http-client.js';
import { loadFleet, privateKeyOf, type Fleet } from '../fleet/fleet.js';

export interface FleetEnvironment {
  fleet: Fleet;
  serverIds: Record<string, string>;
  /** A service with one deployment per named server (rows inserted directly: the catalog API is another branch's). */
  addService(name: string, servers: string[]): Promise<string>;
}

/** Points an environment at the local test fleet through the API: its SSH key and one server per fleet server. */
export async function useFleet(svc: TestService, admin: HttpClient, environmentId: string): Promise<FleetEnvironment> {
  const fleet = loadFleet();
  const db = svc.services.db;
  const key = await admin.put(`/api/environments/${environmentId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) });
  expect(key.status, key.text).to.equal(200);
  const serverIds: Record<string, string> = {};
  for (const f of fleet.servers) {
    const res = await admin.post(`/api/environments/${environmentId}/servers`, {
      name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user, dockerMode: 'ssh',
    });
    expect(res.status, res.text).to.equal(201);
    serverIds[f.name] = res.body.id;
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
