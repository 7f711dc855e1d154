// Shared set-up for the deploy e2e tests: the real service on a fresh database, one environment
// holding the fleet's SSH key, the fleet servers, and the fleet registry's web image.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { bootstrapAdmin, createEnvironment } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { loadFleet, serverExec, type Fleet } from '../../fleet/fleet.js';
import type { Services } from '../../../controller/services.js';

export interface World {
  svc: TestService;
  s: Services;
  admin: HttpClient;
  fleet: Fleet;
  envId: string;
  /** server name (s1..) -> server id */
  servers: Record<string, string>;
  imageId: string;
  /** unique per test file, so container names never collide */
  tag: string;
}

export async function startWorld(env: Record<string, string> = {}): Promise<World> {
  const fleet = loadFleet();
  const svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600', ...env });
  const s = svc.services;
  const admin = await bootstrapAdmin(svc.http);
  const { id: envId } = await createEnvironment(admin);
  const key = readFileSync(fleet.servers[0].privateKeyPath, 'utf8');
  await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(key) });
  const servers: Record<string, string> = {};
  for (const f of fleet.servers) {
    const row = await s.servers.insert({
      environmentId: envId, name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user, dockerMode: 'ssh',
      hostKeyFingerprint: f.hostKeyFingerprint ?? null,
    } as never);
    servers[f.name] = row.id;
  }
  const image = await s.containerImages.insert({ environmentId: envId, imageName: fleet.images.webV1.replace(/:v1$/, '') } as never);
  return { svc, s, admin, fleet, envId, servers, imageId: image.id, tag: randomBytes(3).toString('hex') };
}

export async function addService(w: World, name: string, opts: { servers: string[]; imageTag?: string; dependsOn?: string[]; healthCheck?: object | null; env?: Record<string, string> }) {
  const service = await w.s.services.create(w.envId, {
    name, containerImageId: w.imageId, imageTag: opts.imageTag ?? 'v1', env: opts.env ?? { GREETING: 'hello' }, ports: [], volumes: [],
    healthCheck: (opts.healthCheck ?? null) as never,
  });
  const deployments = [];
  for (const server of opts.servers) {
    deployments.push(await w.s.deployments.create(service.id, w.envId, { serverId: w.servers[server], containerName: `${name}-${w.tag}-${server}` }));
  }
  for (const dep of opts.dependsOn ?? []) await w.s.db('service_dependencies').insert({ serviceId: service.id, dependsOnServiceId: dep });
  return { service, deployments };
}

/** What the container answers over HTTP, asked from inside it (docker exec on the server). */
export async function httpBody(server: string, container: string): Promise<string> {
  return serverExec(server, ['docker', 'exec', container, 'wget', '-qO-', 'http://127.0.0.1:80/']);
}

export async function containerImage(server: string, container: string): Promise<string> {
  return (await serverExec(server, ['docker', 'inspect', '--format', '{{.Config.Image}} {{.State.Status}}', container])).trim();
}

export async function waitPlan(w: World, planId: string, ms = 120_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await w.admin.get(`/api/deployment-plans/${planId}`);
    expect(res.status, res.text).to.equal(200);
    if (!['pending', 'running', 'rolling_back'].includes(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`plan ${planId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Removes every container this world created on the fleet. */
export async function cleanup(w: World | undefined) {
  if (!w) return;
  for (const name of Object.keys(w.servers)) {
    await serverExec(name, ['sh', '-c', `docker ps -aq --filter name=-${w.tag}- | xargs -r docker rm -f; rm -rf /opt/stevedore/deployments/*-${w.tag}-*`]).catch(() => undefined);
  }
  await w.s.hosts.close().catch(() => undefined);
  await w.svc.stop();
}
