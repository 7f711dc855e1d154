import type { ApiClient } from './api-client.js';
import { CliError, UsageError } from './cli-error.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An environment by name or id. */
export async function environmentOf(api: ApiClient, nameOrId: string | undefined): Promise<{ id: string; name: string }> {
  if (!nameOrId) throw new UsageError('which environment? pass -e ENV (or log in with --environment to set a default)');
  const all = await api.list<{ id: string; name: string }>('/api/environments');
  const env = all.find((e) => e.name === nameOrId || e.id === nameOrId);
  if (!env) throw new CliError(`no environment ${nameOrId} (known: ${all.map((e) => e.name).join(', ') || 'none'})`);
  return env;
}

/** An item of an environment's collection (services, servers, …) by name or id. */
export async function itemOf(api: ApiClient, envId: string, kind: string, nameOrId: string, label = kind.replace(/s$/, '')): Promise<any> {
  if (UUID.test(nameOrId)) return api.get(`/api/${kind}/${nameOrId}`);
  const all = await api.list<{ id: string; name: string }>(`/api/environments/${envId}/${kind}`);
  const found = all.find((x) => x.name === nameOrId);
  if (!found) throw new CliError(`no ${label} ${nameOrId} in this environment`);
  return found;
}

/** A service by name (in `-e ENV` or the context's default environment) or by id. */
export async function serviceOf(api: ApiClient, env: string | undefined, nameOrId: string): Promise<any> {
  if (UUID.test(nameOrId)) return api.get(`/api/services/${nameOrId}`);
  const e = await environmentOf(api, env);
  const found = await itemOf(api, e.id, 'services', nameOrId, 'service');
  return api.get(`/api/services/${found.id}`);
}

/** The names of an environment's servers, by id. */
export async function serverNames(api: ApiClient, environmentId: string): Promise<Map<string, string>> {
  return new Map((await api.list<{ id: string; name: string }>(`/api/environments/${environmentId}/servers`)).map((s) => [s.id, s.name]));
}

/** A deployment as the CLI's commands read it. */
export interface ServiceDeployment { id: string; serverId: string; containerName: string }

/**
 * A service's deployments, all of them or the one on `server` (a server's name or id), with the
 * environment's server names; none is an error naming the service (and the server asked for).
 */
export async function deploymentsOf(api: ApiClient, svc: { id: string; name: string; environmentId: string }, server?: string) {
  const servers = await serverNames(api, svc.environmentId);
  let deployments = await api.list<ServiceDeployment>(`/api/services/${svc.id}/deployments`);
  if (server) deployments = deployments.filter((d) => d.serverId === server || servers.get(d.serverId) === server);
  if (!deployments.length) throw new CliError(`${svc.name} has no deployment${server ? ` on ${server}` : ''}`);
  return { deployments, servers };
}
