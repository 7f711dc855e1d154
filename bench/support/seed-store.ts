// Fills a migrated store with a large fleet for scale benches, through the repositories
// (insertMany: a few hundred rows per statement): environments, socket-mode servers pointing at
// one Docker socket (a simulated one: bench/support/simulated-docker.ts), one container image per
// environment, and services deployed once each at tag v1, as if a first deploy had run.
import type { Db } from '../../controller/store/knex.js';
import { EnvironmentsRepository } from '../../controller/store/repositories/environments.js';
import { ServersRepository, type ServerRow } from '../../controller/store/repositories/servers.js';
import { ContainerImagesRepository } from '../../controller/store/repositories/container-images.js';
import { ServicesRepository, type ServiceRow } from '../../controller/store/repositories/services.js';
import { DeploymentsRepository, type DeploymentRow } from '../../controller/store/repositories/deployments.js';

export interface SeedSize { environments: number; servers: number; services: number; dockerSocketPath: string }

export interface SeededDeployment {
  deployment: DeploymentRow;
  service: ServiceRow;
  serverName: string;
  imageName: string;
}

export const SEED_IMAGE = 'registry.example/scale/app';
export const SEED_TAG = 'v1';

/** Seeds the store; returns every deployment with what its desired container is rendered from. */
export async function seedStore(db: Db, size: SeedSize): Promise<SeededDeployment[]> {
  const environments = await new EnvironmentsRepository(db).insertMany(
    Array.from({ length: size.environments }, (_, e) => ({ name: `scale-${e}` })));
  const images = await new ContainerImagesRepository(db).insertMany(environments.map((e) => ({ environmentId: e.id, imageName: SEED_IMAGE })));
  const imageOf = new Map(images.map((i) => [i.environmentId, i.id]));
  const servers = await new ServersRepository(db).insertMany(Array.from({ length: size.servers }, (_, n) => ({
    environmentId: environments[n % size.environments]!.id, name: `srv-${n}`, hostname: `srv-${n}.scale.invalid`,
    sshUser: 'root', dockerMode: 'socket' as const, dockerSocketPath: size.dockerSocketPath,
  })));
  const serversOf = new Map<string, ServerRow[]>();
  for (const s of servers.sort((a, b) => Number(a.name.slice(4)) - Number(b.name.slice(4)))) {
    serversOf.set(s.environmentId, [...(serversOf.get(s.environmentId) ?? []), s]);
  }
  // jsonb columns take JSON text (see toColumns in the services repository)
  const services = await new ServicesRepository(db).insertMany(Array.from({ length: size.services }, (_, n) => {
    const environmentId = environments[n % size.environments]!.id;
    return {
      environmentId, name: `svc-${n}`, containerImageId: imageOf.get(environmentId)!, imageTag: SEED_TAG,
      env: JSON.stringify({ LOG_LEVEL: 'info', SERVICE_INDEX: String(n) }) as never,
      command: JSON.stringify(['sleep', '2147483647']) as never,
    };
  }));
  const byName = new Map(services.map((s) => [s.name, s]));
  const rows = Array.from({ length: size.services }, (_, n) => {
    const service = byName.get(`svc-${n}`)!;
    const onEnv = serversOf.get(service.environmentId)!;
    const server = onEnv[Math.floor(n / size.environments) % onEnv.length]!;
    return {
      serviceId: service.id, environmentId: service.environmentId, serverId: server.id, containerName: `svc-${n}`,
      status: 'running', imageTag: SEED_TAG, lastDeployedAt: new Date(),
    };
  });
  const deployments = await new DeploymentsRepository(db).insertMany(rows);
  const serverName = new Map(servers.map((s) => [s.id, s.name]));
  return deployments.map((d) => ({ deployment: d, service: byName.get(d.containerName)!, serverName: serverName.get(d.serverId)!, imageName: SEED_IMAGE }));
}
