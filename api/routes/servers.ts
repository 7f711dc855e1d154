import type { Trx } from '../../controller/store/transaction.js';
import type { Services } from '../../controller/services.js';
import { AppError, conflict, validationError } from '../../controller/errors/app-error.js';
import { DEFAULT_HEALTH_TIMEOUT_MS, mapLimit, refreshHealth } from '../../controller/servers/health.js';
import { discoverContainers, listServerContainers } from '../../controller/servers/discovery.js';
import { parseProcesses, PS_ARGV } from '../../controller/servers/processes.js';
import { parsePrivateKey, generatePrivateKey } from '../../controller/servers/ssh-key.js';
import { hostsFromTerraformOutput } from '../../controller/servers/terraform-import.js';
import {
  HOSTNAME_PATTERN, SERVER_NAME_PATTERN, SOCKET_PATH_PATTERN, SSH_USER_PATTERN, TAG_PATTERN, normalizeSocketPath,
} from '../../controller/servers/validation.js';
import { toServer, type ServerRow } from '../../controller/store/repositories/servers.js';
import { scanHostKey } from '../../controller/hosts/scan-host-key.js';
import { route } from '../http/route.js';
import type { Reach } from '../../controller/auth/policy.js';
import {
  arrayOf, bool, condition, enumOf, int, listOf, nonEmpty, nullable, nullableTimestamp, object, paginationQuery,
  resourceSchemas, str, timestamp, uuid, type Schema,
} from '../http/schema.js';
import { environmentOf, rowOf, sshOnly } from './loaders.js';
import { server } from '../../controller/kinds/server.js';
import { changeMetricsMode } from '../../controller/monitoring/agent/change-metrics-mode.js';
import { agentInstallFields, agentInstallOptions } from './agent-install-body.js';
import { labelSelectorOf, labelSelectorQuery } from '../http/label-selector.js';
import { syncPlacements } from '../../reconcilers/service/placement.js';

const serverSchemas = server.schemas!;

const sshKeyRead = object({ configured: bool, publicKey: nullable(str()), fingerprint: nullable(str()), updatedAt: nullableTimestamp });
/** How long a host key scan waits for the server's key exchange. */
const SCAN_TIMEOUT_MS = 10_000;
const checkItem = object({ serverId: uuid, name: str(), ok: bool, message: str() });
const containerSchema = object({
  containerId: str(), name: str(), image: str(), state: str(), status: nullable(str()), labels: { type: 'object' },
  ports: arrayOf({ type: 'object' }), createdAt: nullableTimestamp, deploymentId: nullable(uuid), serviceId: nullable(uuid),
  discoveredAt: timestamp,
});

type ServerBody = Partial<Omit<ServerRow, 'tags'>> & { tags?: string[] };

/** Label keys and values the schema cannot check (Kubernetes' rules): 400 naming the label. */
function checkLabels(labels: Record<string, string> | undefined): void {
  const problem = server.problem!({ labels });
  if (problem) throw validationError(problem.message, problem.field);
}


// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): adding a server needs an
// admin, its SSH key, host key and register-host routes share its rows, and a write reconnects it.
export default function serverRoutes(s: Services) {
  const env = environmentOf(s);
  const load = rowOf(s.servers, 'Server');
  const defaultsFor = async (environmentId: string, trx?: Trx) => {
    const [general, operations] = await Promise.all([
      s.settings.get<{ sshUser: string }>(environmentId, 'general', trx),
      s.settings.get<{ defaultDockerMode: 'ssh' | 'socket'; defaultMetricsMode: string }>(environmentId, 'operations', trx),
    ]);
    return { sshUser: general.sshUser, dockerMode: operations.defaultDockerMode, metricsMode: operations.defaultMetricsMode };
  };

  /**
   * A socket-mode server is the controller's own machine (its Docker socket, commands run on it):
   * adding one, changing one, or making socket mode an environment's default acts on the whole
   * installation, as register-host does (policy.ts).
   */
  const socketReach = async (environmentId: string, mode: string | undefined): Promise<Reach> =>
    ((mode ?? (await defaultsFor(environmentId)).dockerMode) === 'socket' ? 'installation' : [environmentId]);

  const insertServer = async (environmentId: string, body: ServerBody, source: Record<string, unknown>, trx?: Trx) => {
    const d = await defaultsFor(environmentId, trx);
    return s.servers.insert({
      environmentId,
      name: body.name,
      hostname: body.hostname,
      sshPort: body.sshPort ?? 22,
      sshUser: body.sshUser ?? d.sshUser,
      dockerMode: body.dockerMode ?? d.dockerMode,
      dockerSocketPath: normalizeSocketPath(body.dockerSocketPath) ?? null,
      metricsMode: (body.metricsMode ?? d.metricsMode) as ServerRow['metricsMode'],
      tags: JSON.stringify(body.tags ?? []) as unknown as string[],
      labels: JSON.stringify(body.labels ?? {}) as unknown as Record<string, string>,
      source: JSON.stringify(source) as unknown as Record<string, unknown>,
    }, trx);
  };


  return [
    // ---- environment SSH key ------------------------------------------------------------
    route({
      method: 'GET', path: '/api/environments/{envId}/ssh-key', operationId: 'getEnvironmentSshKey', tag: 'servers',
      access: 'admin', load: env, summary: 'Whether the environment has an SSH key, its public key and SHA256 fingerprint (never the private key)',
      response: sshKeyRead,
      async handler(_ctx, { resource }) {
        const row = await s.environments.sshKeyOf(resource.id);
        return { configured: !!row.sshPrivateKeySealed, publicKey: row.sshPublicKey ?? null, fingerprint: row.sshKeyFingerprint ?? null, updatedAt: row.sshKeyUpdatedAt ?? null };
      },
    }),

    route<{ privateKey: string }>({
      method: 'PUT', path: '/api/environments/{envId}/ssh-key', operationId: 'setEnvironmentSshKey', tag: 'servers',
      access: 'admin', load: env, summary: 'Set the SSH private key used to reach every ssh-mode server of the environment (encrypted at rest)',
      body: object({ privateKey: nonEmpty(16384, { writeOnly: true }) }, ['privateKey']), response: sshKeyRead,
      async handler(ctx, { resource, body }) {
        const key = parsePrivateKey(body.privateKey);
        const updatedAt = await s.environments.setSshKey(resource.id, {
          sshPrivateKeySealed: s.secretBox.seal(body.privateKey), sshPublicKey: key.publicKey, sshKeyFingerprint: key.fingerprint,
        });
        s.hosts.invalidateEnvironment(resource.id);
        ctx.state.audit = { resourceType: 'environments', resourceId: resource.id, environmentId: resource.id, details: { fields: ['privateKey'], fingerprint: key.fingerprint } };
        return { configured: true, publicKey: key.publicKey, fingerprint: key.fingerprint, updatedAt };
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/ssh-key/generate', operationId: 'generateEnvironmentSshKey', tag: 'servers',
      access: 'admin', load: env, status: 201, response: sshKeyRead, errors: [409],
      summary: 'Generate an ed25519 key for the environment and keep its private half (encrypted); answers the public key to add to the servers',
      description: 'Refused (409) while the environment has a key: remove it first, or set one with PUT.',
      async handler(ctx, { resource }) {
        if ((await s.environments.sshKeyOf(resource.id)).sshPrivateKeySealed) {
          throw conflict(`environment ${resource.name} already has an SSH key`, 'DELETE …/ssh-key first to replace it, or PUT a key of your own');
        }
        const privateKey = generatePrivateKey(`stevedore-${resource.name}`);
        const key = parsePrivateKey(privateKey);
        const updatedAt = await s.environments.setSshKey(resource.id, {
          sshPrivateKeySealed: s.secretBox.seal(privateKey), sshPublicKey: key.publicKey, sshKeyFingerprint: key.fingerprint,
        });
        s.hosts.invalidateEnvironment(resource.id);
        ctx.state.audit = { resourceType: 'environments', resourceId: resource.id, environmentId: resource.id, details: { generated: true, fingerprint: key.fingerprint } };
        return { configured: true, publicKey: key.publicKey, fingerprint: key.fingerprint, updatedAt };
      },
    }),

    route({
      method: 'DELETE', path: '/api/environments/{envId}/ssh-key', operationId: 'deleteEnvironmentSshKey', tag: 'servers',
      access: 'admin', load: env, summary: 'Remove the environment SSH key', status: 204,
      async handler(ctx, { resource }) {
        await s.environments.clearSshKey(resource.id);
        s.hosts.invalidateEnvironment(resource.id);
        ctx.state.audit = { resourceType: 'environments', resourceId: resource.id, environmentId: resource.id, details: {} };
        return undefined;
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/ssh-key/check', operationId: 'checkEnvironmentSshKey', tag: 'servers',
      access: 'admin', load: env, summary: 'Try the SSH key against every server of the environment (10 s each, 8 at a time)',
      response: object({ items: arrayOf(checkItem) }), errors: [409],
      async handler(ctx, { resource }) {
        const row = await s.environments.sshKeyOf(resource.id);
        if (!row.sshPrivateKeySealed) throw conflict('The environment has no SSH key', 'PUT /api/environments/{envId}/ssh-key first');
        const servers = await s.servers.listByEnvironment(resource.id);
        const items = await mapLimit(servers, 8, async (srv) => {
          if (srv.dockerMode === 'socket') return { serverId: srv.id, name: srv.name, ok: true, message: 'socket mode: the SSH key is not used' };
          try {
            await s.hosts.exec(srv.id, ['true'], { timeoutMs: 10_000 });
            return { serverId: srv.id, name: srv.name, ok: true, message: `logged in as ${srv.sshUser}` };
          } catch (err) {
            return { serverId: srv.id, name: srv.name, ok: false, message: err instanceof Error ? err.message : String(err) };
          }
        });
        ctx.state.audit = { resourceType: 'environments', resourceId: resource.id, details: { servers: items.length, failed: items.filter((i) => !i.ok).length } };
        return { items };
      },
    }),

    // ---- servers ------------------------------------------------------------------------
    route<unknown, { limit: number; offset: number; labelSelector?: string }>({
      method: 'GET', path: '/api/environments/{envId}/servers', operationId: 'listServers', tag: 'servers', access: 'viewer',
      load: env, summary: 'Servers of the environment, by name; labelSelector keeps those whose labels hold every pair',
      query: { ...paginationQuery, labelSelector: labelSelectorQuery }, response: listOf(serverSchemas.read),
      async handler(_ctx, { resource, query }) {
        const page = await s.servers.pageByLabels(resource.id, labelSelectorOf(query.labelSelector), query);
        return { ...page, items: page.items.map(toServer) };
      },
    }),

    route<ServerBody>({
      method: 'POST', path: '/api/environments/{envId}/servers', operationId: 'createServer', tag: 'servers', access: 'admin',
      load: env, summary: "Add a server; sshUser, dockerMode and metricsMode default to the environment's settings",
      actsIn: (_ctx, { params, body }) => socketReach(params.envId, body.dockerMode),
      body: serverSchemas.create, readOnly: serverSchemas.readOnly, status: 201, response: serverSchemas.read, errors: [409],
      async handler(_ctx, { resource, body }) {
        checkLabels(body.labels);
        const row = await insertServer(resource.id, body, { kind: 'api' });
        if (Object.keys(row.labels ?? {}).length) await syncPlacements(s, resource.id);
        return toServer(row);
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/servers/register-host', operationId: 'registerHostServer', tag: 'servers',
      access: 'admin', load: env, status: 201, response: serverSchemas.read, errors: [409],
      // the controller's own machine (its Docker socket, its files): not one environment's to hand out
      actsIn: 'installation',
      summary: "Register the controller's own machine as a socket-mode server (Docker through a local socket, commands run locally); health checks the socket",
      body: object({
        name: nonEmpty(100, { pattern: SERVER_NAME_PATTERN, default: 'controller-host' }),
        dockerSocketPath: str({ maxLength: 255, pattern: SOCKET_PATH_PATTERN, default: '/var/run/docker.sock' }),
        tags: arrayOf(str({ minLength: 1, maxLength: 64, pattern: TAG_PATTERN }), { maxItems: 50, uniqueItems: true }),
      }),
      async handler(_ctx, { resource, body }) {
        const b = body as { name: string; dockerSocketPath: string; tags?: string[] };
        const row = await insertServer(resource.id, {
          name: b.name, hostname: 'localhost', dockerMode: 'socket', dockerSocketPath: normalizeSocketPath(b.dockerSocketPath), tags: b.tags,
        }, { kind: 'register-host' });
        return toServer(row);
      },
    }),

    route<{ output: unknown; outputName?: string }>({
      method: 'POST', path: '/api/environments/{envId}/servers/import', operationId: 'importServers', tag: 'servers', access: 'admin',
      load: env, errors: [409],
      actsIn: (_ctx, { params }) => socketReach(params.envId, undefined),
      summary: 'Create or update servers from `terraform output -json`. Body {output, outputName?}: output is the whole document '
        + '({name: {value, type, sensitive}}; every output whose value is a host list or map is used, or only outputName) or a bare value; '
        + 'a value is a list of {name, host|ip|hostname|address|ipv4_address|public_ip|private_ip, port|ssh_port?, user|ssh_user?, tags?} '
        + 'or a map name -> address or name -> such an object. Servers are matched by name; output may also be the JSON text.',
      body: object({ output: {}, outputName: nonEmpty(200) }, ['output']),
      response: object({ created: arrayOf(serverSchemas.read), updated: arrayOf(serverSchemas.read), unchanged: arrayOf(serverSchemas.read) }),
      async handler(ctx, { resource, body }) {
        let doc = body.output;
        if (typeof doc === 'string') {
          try {
            doc = JSON.parse(doc);
          } catch {
            throw validationError('output is not valid JSON', 'output');
          }
        }
        const hosts = hostsFromTerraformOutput(doc, body.outputName);
        const source = { kind: 'terraform-import', ...(body.outputName ? { output: body.outputName } : {}) };
        const out = await s.transaction(async (trx) => {
          const created: ServerRow[] = [];
          const updated: ServerRow[] = [];
          const unchanged: ServerRow[] = [];
          for (const h of hosts) {
            const existing = await s.servers.findByNameForUpdate(resource.id, h.name, trx);
            if (!existing) {
              created.push(await insertServer(resource.id, { ...h }, source, trx));
              continue;
            }
            const changes: Record<string, unknown> = {};
            if (existing.hostname !== h.hostname) changes.hostname = h.hostname;
            if (h.sshPort !== undefined && existing.sshPort !== h.sshPort) changes.sshPort = h.sshPort;
            if (h.sshUser !== undefined && existing.sshUser !== h.sshUser) changes.sshUser = h.sshUser;
            if (h.tags && JSON.stringify(h.tags) !== JSON.stringify(existing.tags)) changes.tags = JSON.stringify(h.tags);
            if (!Object.keys(changes).length) {
              unchanged.push(existing);
              continue;
            }
            // a new address may be a new machine: its key must be pinned again
            if (changes.hostname || changes.sshPort) changes.hostKeyFingerprint = null;
            updated.push((await s.servers.update(existing.id, { ...changes, generation: existing.generation + 1 } as Partial<ServerRow>, trx))!);
          }
          return { created, updated, unchanged };
        });
        for (const r of out.updated) s.hosts.invalidate(r.id);
        ctx.state.audit = {
          resourceType: 'servers', environmentId: resource.id,
          details: { source: 'terraform-import', created: out.created.map((r) => r.name), updated: out.updated.map((r) => r.name), unchanged: out.unchanged.length },
        };
        return { created: out.created.map(toServer), updated: out.updated.map(toServer), unchanged: out.unchanged.map(toServer) };
      },
    }),

    route<unknown, { includeServices?: boolean }>({
      method: 'GET', path: '/api/servers/{id}', operationId: 'getServer', tag: 'servers', access: 'viewer', load,
      summary: 'One server; includeServices=true adds the deployments placed on it', query: { includeServices: bool },
      response: {
        ...serverSchemas.read,
        properties: {
          ...(serverSchemas.read.properties as Record<string, Schema>),
          services: {
            description: 'With includeServices=true: the deployments placed on the server',
            ...arrayOf(object({
              deploymentId: uuid, serviceId: uuid, serviceName: str(), containerName: str(), status: str(), imageTag: nullable(str()),
            }, ['deploymentId', 'serviceId', 'serviceName', 'containerName', 'status', 'imageTag'])),
          },
        },
      },
      async handler(_ctx, { resource, query }) {
        if (!query.includeServices) return toServer(resource);
        return { ...toServer(resource), services: await s.deploymentViews.servicesOn(resource.id) };
      },
    }),

    route<ServerBody>({
      method: 'PATCH', path: '/api/servers/{id}', operationId: 'updateServer', tag: 'servers', access: 'admin', load,
      actsIn: (_ctx, { resource, body }) => socketReach(resource.environmentId, body.dockerMode === 'socket' ? 'socket' : resource.dockerMode),
      summary: 'Change a server; a new hostname or port forgets the pinned host key; new labels move the deployments of services placed by serverSelector', body: serverSchemas.update,
      readOnly: serverSchemas.readOnly, response: serverSchemas.read, errors: [409],
      async handler(_ctx, { resource, body }) {
        checkLabels(body.labels);
        const changes: Record<string, unknown> = { ...body, generation: resource.generation + 1 };
        if (body.tags) changes.tags = JSON.stringify(body.tags);
        if (body.labels) changes.labels = JSON.stringify(body.labels);
        if (body.dockerSocketPath !== undefined) changes.dockerSocketPath = normalizeSocketPath(body.dockerSocketPath);
        if ((body.hostname && body.hostname !== resource.hostname) || (body.sshPort && body.sshPort !== resource.sshPort)) {
          changes.hostKeyFingerprint = null;
        }
        const row = await s.servers.update(resource.id, changes as Partial<ServerRow>);
        s.hosts.invalidate(resource.id);
        // a server that starts or stops matching a service's selector gains or loses its deployment
        if (body.labels && JSON.stringify(body.labels) !== JSON.stringify(resource.labels)) await syncPlacements(s, resource.environmentId);
        return toServer(row!);
      },
    }),

    route({
      method: 'DELETE', path: '/api/servers/{id}', operationId: 'deleteServer', tag: 'servers', access: 'admin', load,
      summary: 'Remove a server from Stevedore (its deployments records go with it; nothing is stopped on the machine)', status: 204,
      async handler(ctx, { resource }) {
        await s.servers.delete(resource.id);
        s.hosts.invalidate(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name } };
        return undefined;
      },
    }),

    route<{ fingerprint: string }>({
      method: 'POST', path: '/api/servers/{id}/host-key/reset', operationId: 'resetServerHostKey', tag: 'servers', access: 'admin', load,
      summary: 'Forget the pinned SSH host key (after a rebuild, as ssh-keygen -R): the next connection pins the key the server presents then',
      description: 'Body {fingerprint}: the pinned fingerprint the caller saw (GET /api/servers/{id}); a different pin (409) is kept, so '
        + 'a key pinned meanwhile is never forgotten unseen. Audited with the forgotten fingerprint.',
      body: object({ fingerprint: nonEmpty(200) }, ['fingerprint']), response: serverSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        if (!resource.hostKeyFingerprint) throw conflict(`server ${resource.name} has no pinned host key`, 'its next connection pins the key it presents');
        // compare and clear in one statement: a key pinned since the caller looked is kept
        if (!(await s.servers.forgetHostKey(resource.id, body.fingerprint))) {
          throw conflict(`server ${resource.name} has another pinned host key than ${body.fingerprint}`, 'read the server again and confirm the key shown', 'fingerprint');
        }
        s.hosts.invalidate(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name, forgottenFingerprint: body.fingerprint } };
        return toServer((await s.servers.findById(resource.id))!);
      },
    }),

    route({
      method: 'POST', path: '/api/servers/{id}/host-key/scan', operationId: 'scanServerHostKey', tag: 'servers', access: 'admin', load,
      summary: 'The host key the server presents now, read as ssh-keyscan does (the connection stops at the key exchange: nothing '
        + 'authenticates or runs), next to the pinned one. Stores nothing. 409 for socket-mode servers',
      response: object({
        serverId: uuid, presented: nullable(object({ fingerprint: str(), algorithm: str() }, ['fingerprint', 'algorithm'])),
        pinned: nullable(str()), matches: bool, message: str(),
      }), errors: [409],
      async handler(ctx, { resource }) {
        sshOnly(resource);
        const presented = await scanHostKey(resource, SCAN_TIMEOUT_MS).catch((e: Error) => e);
        const pinned = resource.hostKeyFingerprint ?? null;
        if (presented instanceof Error) {
          return { serverId: resource.id, presented: null, pinned, matches: false, message: `no host key read: ${presented.message}`.slice(0, 500) };
        }
        const matches = presented.fingerprint === pinned;
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name, presented: presented.fingerprint, pinned } };
        return {
          serverId: resource.id, presented, pinned, matches,
          message: matches ? 'the server presents the pinned key' : pinned ? 'the server presents another key than the pinned one' : 'no key is pinned yet',
        };
      },
    }),

    route<{ fingerprint: string; replaces: string | null }>({
      method: 'POST', path: '/api/servers/{id}/host-key/accept', operationId: 'acceptServerHostKey', tag: 'servers', access: 'admin', load,
      summary: 'Pin the host key the server presents now, after a rebuild: {fingerprint} is the presented key the caller checked '
        + '(POST …/host-key/scan), {replaces} the pinned key it saw (null: none)',
      description: 'The key is read again and pinned only if it is still `fingerprint` and the pin is still `replaces`; otherwise 409 and '
        + 'nothing changes, so neither a key swapped meanwhile nor a pin made meanwhile is accepted unseen. Audited with both keys.',
      body: object({ fingerprint: nonEmpty(200), replaces: nullable(nonEmpty(200)) }, ['fingerprint', 'replaces']),
      response: serverSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        sshOnly(resource);
        const presented = await scanHostKey(resource, SCAN_TIMEOUT_MS).catch((e: Error) => {
          throw conflict(`could not read the key server ${resource.name} presents: ${e.message}; nothing was pinned`, 'check that the server answers on its SSH port');
        });
        if (presented.fingerprint !== body.fingerprint) {
          throw conflict(`server ${resource.name} presents ${presented.fingerprint}, not ${body.fingerprint}; nothing was pinned`,
            'scan again and compare the key with the one on the machine', 'fingerprint');
        }
        if (!(await s.servers.replaceHostKey(resource.id, body.replaces, body.fingerprint))) {
          throw conflict(`server ${resource.name} has another pinned host key than ${body.replaces ?? 'none'}`, 'read the server again', 'replaces');
        }
        s.hosts.invalidate(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name, pinnedFingerprint: body.fingerprint, replacedFingerprint: body.replaces } };
        return toServer((await s.servers.findById(resource.id))!);
      },
    }),

    // ---- live operations ----------------------------------------------------------------
    route<{ timeoutMs?: number }>({
      method: 'POST', path: '/api/servers/{id}/health', operationId: 'checkServerHealth', tag: 'servers', access: 'operator', load,
      summary: 'Live health check (ssh + docker version, or the local Docker socket in socket mode) within timeoutMs (default 10000); stores and answers the result',
      body: object({ timeoutMs: int(500, 60_000) }), response: serverSchemas.read,
      async handler(ctx, { resource, body }) {
        const { result, server } = await refreshHealth(s, resource, body.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS);
        ctx.state.audit = { environmentId: resource.environmentId, details: { status: result.status, durationMs: result.durationMs } };
        return toServer(server ?? resource);
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/health-status', operationId: 'getEnvironmentHealthStatus', tag: 'servers',
      access: 'viewer', load: env, summary: 'Cached health of the environment\'s servers and deployments; never starts a live check',
      response: object({ servers: arrayOf({ type: 'object' }), services: arrayOf({ type: 'object' }), databases: arrayOf({ type: 'object' }) }),
      async handler(_ctx, { resource }) {
        const servers = await s.servers.listByEnvironment(resource.id);
        const deployments = await s.deploymentViews.ofEnvironment(resource.id);
        const services = new Map<string, { serviceId: string; name: string; deployments: Array<Record<string, unknown>> }>();
        for (const d of deployments) {
          const entry = services.get(d.serviceId) ?? { serviceId: d.serviceId as string, name: d.serviceName as string, deployments: [] as Array<Record<string, unknown>> };
          entry.deployments.push({ deploymentId: d.deploymentId, serverId: d.serverId, containerName: d.containerName, status: d.status, imageTag: d.imageTag, conditions: d.conditions });
          services.set(d.serviceId, entry);
        }
        return {
          servers: servers.map((r) => ({ serverId: r.id, name: r.name, status: r.healthStatus, checkedAt: r.healthCheckedAt, message: r.healthMessage })),
          services: [...services.values()],
          databases: [],
        };
      },
    }),

    route({
      method: 'POST', path: '/api/servers/{id}/discover', operationId: 'discoverServerContainers', tag: 'servers', access: 'operator', load,
      summary: 'Record the containers running on the server and link them to deployments by container name (read back with GET /api/servers/{id}/containers)',
      response: object({ serverId: uuid, discoveredAt: timestamp, items: arrayOf(containerSchema) }), errors: [409, 502, 503],
      async handler(ctx, { resource }) {
        const out = await discoverContainers(s, resource);
        ctx.state.audit = { environmentId: resource.environmentId, details: { containers: out.items.length, linked: out.items.filter((c) => c.deploymentId).length } };
        return out;
      },
    }),

    route({
      method: 'GET', path: '/api/servers/{id}/containers', operationId: 'listServerContainers', tag: 'servers', access: 'viewer', load,
      summary: 'Containers found by the last discovery of the server', response: object({ serverId: uuid, items: arrayOf(containerSchema) }),
      async handler(_ctx, { resource }) {
        return { serverId: resource.id, items: await listServerContainers(s, resource.id) };
      },
    }),

    route({
      method: 'GET', path: '/api/servers/{id}/processes', operationId: 'getServerProcesses', tag: 'servers', access: 'operator', load,
      summary: 'Process snapshot of the server (ps over ssh), busiest CPU first; operator because command lines may be sensitive',
      query: { limit: { type: 'integer', minimum: 1, maximum: 2000, default: 200 } }, errors: [409, 502, 503],
      response: object({ serverId: uuid, takenAt: timestamp, total: int(0), items: arrayOf({ type: 'object' }) }),
      async handler(_ctx, { resource, query }) {
        const res = await s.hosts.exec(resource.id, PS_ARGV, { timeoutMs: 15_000 });
        const all = parseProcesses(res.stdout).sort((a, b) => b.cpuPercent - a.cpuPercent);
        return { serverId: resource.id, takenAt: new Date().toISOString(), total: all.length, items: all.slice(0, (query as { limit: number }).limit) };
      },
    }),

    route({
      method: 'POST', path: '/api/servers/{id}/prune-images', operationId: 'pruneServerImages', tag: 'servers', access: 'operator', load,
      summary: "Remove unused images per the environment's operations.pruneImagesMode: dangling (untagged layers) or all (every image no container uses)",
      response: object({ serverId: uuid, mode: enumOf('dangling', 'all'), imagesDeleted: int(0), spaceReclaimedBytes: int(0) }), errors: [409, 502, 503],
      async handler(ctx, { resource }) {
        const { pruneImagesMode: mode } = await s.settings.get<{ pruneImagesMode: 'dangling' | 'all' }>(resource.environmentId, 'operations');
        const docker = await s.hosts.docker(resource.id);
        const res = await docker.pruneImages({ filters: { dangling: [mode === 'all' ? 'false' : 'true'] } }) as
          { ImagesDeleted?: Array<{ Deleted?: string; Untagged?: string }> | null; SpaceReclaimed?: number };
        const imagesDeleted = (res.ImagesDeleted ?? []).filter((d) => d.Deleted).length;
        const out = { serverId: resource.id, mode, imagesDeleted, spaceReclaimedBytes: res.SpaceReclaimed ?? 0 };
        ctx.state.audit = { environmentId: resource.environmentId, details: { mode, imagesDeleted, spaceReclaimedBytes: out.spaceReclaimedBytes } };
        return out;
      },
    }),

    route<{ mode: ServerRow['metricsMode']; controllerUrl?: string; waitSec: number }>({
      method: 'POST', path: '/api/servers/{id}/metrics-mode', operationId: 'setServerMetricsMode', tag: 'servers', access: 'operator', load,
      summary: 'Change how metrics are collected from the server: disabled, ssh or agent. To agent installs the monitoring agent '
        + '(as POST …/agent, with its controllerUrl and waitSec), away from agent removes it (as DELETE …/agent); the same mode is a '
        + 'no-op. Answers the server and, when the agent was installed or removed, its observed status (agent)',
      body: object({ mode: enumOf('disabled', 'ssh', 'agent'), ...agentInstallFields }, ['mode']),
      response: { ...serverSchemas.read, properties: { ...(serverSchemas.read.properties as object), agent: { type: 'object', nullable: true } } },
      errors: [409, 502, 503],
      async handler(ctx, { resource, body }) {
        const out = await changeMetricsMode(s, resource, body.mode, () => agentInstallOptions(s, ctx, body));
        ctx.state.audit = { environmentId: resource.environmentId, details: { from: resource.metricsMode, to: body.mode } };
        return { ...toServer(out.server), agent: out.agent };
      },
    }),
  ];
}
