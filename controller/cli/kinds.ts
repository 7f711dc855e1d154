import type { ApiClient } from './api-client.js';
import { CliError, UsageError } from './cli-error.js';
import { age } from './format-table.js';
import type { Column } from './output.js';
import { environmentOf, serviceOf } from './resolve.js';

const condition = (item: { conditions?: Array<{ type: string; status: string }> }, type: string) =>
  item.conditions?.find((c) => c.type === type)?.status ?? '';

/**
 * The kinds `get` knows: how to list them (`list`, given the environment when they live in
 * one) and the columns of their table. Aliases are kubectl-like (singular, short).
 */
export interface KindView {
  aliases: string[];
  /** `environment`: an environment's collection; `global`: a top-level list; `service`: needs SERVICE as NAME. */
  scope: 'global' | 'environment' | 'service';
  route: (scopeId: string) => string;
  columns: Column[];
  /** `-l key=value,…`: servers by their labels, services by what their serverSelector asks for. */
  labelSelector?: boolean;
  /** The item routes' collection, `/api/<item>/{id}` (get, PATCH, DELETE): kinds that `delete`, `edit` and `disown` reach. */
  item?: string;
}

const name: Column = { header: 'name', cell: (i) => i.name };
const created: Column = { header: 'age', cell: (i) => age(i.createdAt) };
const id: Column = { header: 'id', cell: (i) => i.id, wide: true };
const pairs = (m: Record<string, string> | null | undefined) => Object.entries(m ?? {}).map(([k, v]) => `${k}=${v}`).join(',');

export const KINDS: Record<string, KindView> = {
  environments: { aliases: ['environment', 'env', 'envs'], scope: 'global', item: 'environments', route: () => '/api/environments', columns: [name, id, created] },
  servers: {
    aliases: ['server'], scope: 'environment', item: 'servers', route: (e) => `/api/environments/${e}/servers`, labelSelector: true,
    columns: [name, { header: 'hostname', cell: (i) => i.hostname }, { header: 'health', cell: (i) => i.health?.status }, { header: 'labels', cell: (i) => pairs(i.labels) },
      { header: 'user', cell: (i) => i.sshUser, wide: true }, id, created],
  },
  services: {
    aliases: ['service', 'svc'], scope: 'environment', item: 'services', route: (e) => `/api/environments/${e}/services`, labelSelector: true,
    columns: [name, { header: 'tag', cell: (i) => i.imageTag }, { header: 'ready', cell: (i) => condition(i, 'Ready') },
      { header: 'revision', cell: (i) => (i.desiredRevision ? `${i.currentRevision ?? '-'}/${i.desiredRevision}` : '') },
      { header: 'deployments', cell: (i) => i.deployments?.length ?? 0 }, { header: 'progressing', cell: (i) => condition(i, 'Progressing'), wide: true },
      { header: 'degraded', cell: (i) => condition(i, 'Degraded'), wide: true }, { header: 'selector', cell: (i) => pairs(i.serverSelector?.matchLabels), wide: true }, id, created],
  },
  deployments: {
    aliases: ['deployment', 'deploy'], scope: 'service', route: (s) => `/api/services/${s}/deployments`,
    columns: [{ header: 'container', cell: (i) => i.containerName }, { header: 'status', cell: (i) => (i.statusNote ? `${i.status} (${i.statusNote})` : i.status) }, { header: 'tag', cell: (i) => i.imageTag },
      { header: 'revision', cell: (i) => i.revision }, { header: 'server', cell: (i) => i.serverId, wide: true }, id, { header: 'deployed', cell: (i) => age(i.lastDeployedAt) }],
  },
  plans: {
    aliases: ['plan', 'deployment-plans', 'deployment-plan'], scope: 'environment', route: (e) => `/api/environments/${e}/deployment-plans`,
    columns: [{ header: 'id', cell: (i) => i.id }, name, { header: 'status', cell: (i) => i.status }, { header: 'trigger', cell: (i) => i.trigger, wide: true },
      { header: 'error', cell: (i) => i.error, wide: true }, created],
  },
  revisions: {
    aliases: ['revision', 'rev'], scope: 'service', route: (s) => `/api/services/${s}/revisions`,
    columns: [{ header: 'revision', cell: (i) => i.revision }, { header: 'tag', cell: (i) => i.imageTag }, { header: 'outcome', cell: (i) => i.outcome },
      { header: 'source', cell: (i) => i.source }, { header: 'reason', cell: (i) => i.reason, wide: true }, { header: 'by', cell: (i) => i.createdBy, wide: true }, created],
  },
  images: {
    aliases: ['image', 'container-images'], scope: 'environment', item: 'container-images', route: (e) => `/api/environments/${e}/container-images`,
    columns: [{ header: 'image', cell: (i) => i.imageName }, { header: 'tag', cell: (i) => i.currentTag }, id, created],
  },
  registries: { aliases: ['registry'], scope: 'environment', item: 'registries', route: (e) => `/api/environments/${e}/registries`, columns: [name, { header: 'url', cell: (i) => i.registryUrl }, id, created] },
  vars: { aliases: ['var'], scope: 'environment', item: 'vars', route: (e) => `/api/environments/${e}/vars`, columns: [{ header: 'key', cell: (i) => i.key }, { header: 'value', cell: (i) => i.value }, id, created] },
  secrets: { aliases: ['secret'], scope: 'environment', item: 'secrets', route: (e) => `/api/environments/${e}/secrets`, columns: [{ header: 'key', cell: (i) => i.key }, { header: 'description', cell: (i) => i.description }, id, created] },
  'config-files': { aliases: ['config-file', 'configs'], scope: 'environment', item: 'config-files', route: (e) => `/api/environments/${e}/config-files`, columns: [name, { header: 'description', cell: (i) => i.description }, id, created] },
  jobs: {
    aliases: ['job', 'cronjobs'], scope: 'environment', item: 'jobs', route: (e) => `/api/environments/${e}/jobs`,
    columns: [name, { header: 'schedule', cell: (i) => i.schedule + (i.timeZone ? ` (${i.timeZone})` : '') }, { header: 'policy', cell: (i) => i.concurrencyPolicy },
      { header: 'enabled', cell: (i) => String(i.enabled) }, { header: 'next', cell: (i) => i.nextRunAt }, { header: 'command', cell: (i) => (i.command ?? []).join(' '), wide: true }, id, created],
  },
  volumes: {
    aliases: ['volume', 'vol'], scope: 'environment', item: 'volumes', route: (e) => `/api/environments/${e}/volumes`,
    columns: [name, { header: 'server', cell: (i) => i.serverId }, { header: 'backup', cell: (i) => i.backup?.schedule ?? '' },
      { header: 'degraded', cell: (i) => condition({ conditions: i.status?.conditions?.map((c: { type: string; status: boolean }) => ({ type: c.type, status: String(c.status) })) }, 'Degraded') },
      { header: 'docker name', cell: (i) => i.dockerName, wide: true }, id, created],
  },
  // docs/git-sources.md#previews: one per open pull request of the environment's Git source
  previews: {
    aliases: ['preview', 'pr', 'prs'], scope: 'environment', route: (e) => `/api/environments/${e}/previews`,
    columns: [{ header: 'pr', cell: (i) => `#${i.number}` }, { header: 'environment', cell: (i) => i.environmentName }, { header: 'state', cell: (i) => i.state },
      { header: 'head', cell: (i) => String(i.headSha ?? '').slice(0, 12) }, { header: 'url', cell: (i) => i.url ?? '' }, { header: 'reason', cell: (i) => i.reason ?? '' },
      { header: 'branch', cell: (i) => i.branch ?? '', wide: true }, { header: 'expires', cell: (i) => i.expiresAt ?? '', wide: true }, { header: 'updated', cell: (i) => age(i.updatedAt) }],
  },
  databases: { aliases: ['database', 'db'], scope: 'environment', item: 'databases', route: (e) => `/api/environments/${e}/databases`, columns: [name, { header: 'engine', cell: (i) => i.engine ?? i.type }, id, created] },
};

export function kindOf(word: string): [string, KindView] {
  const found = Object.entries(KINDS).find(([k, v]) => k === word || v.aliases.includes(word));
  if (!found) throw new UsageError(`unknown kind ${word} (kinds: ${Object.keys(KINDS).join(', ')})`);
  return found;
}

/** The items of a kind: NAME filters them, except for kinds under a service, where NAME is the service. */
export async function listKind(api: ApiClient, view: KindView, env: string | undefined, nameArg: string | undefined, selector?: string)
  : Promise<{ items: any[]; single: boolean; environmentId?: string }> {
  if (selector !== undefined && !view.labelSelector) throw new UsageError('-l selects servers and services only');
  if (view.scope === 'service') {
    if (!nameArg) throw new UsageError('this kind belongs to a service: stevedore get KIND SERVICE');
    const svc = await serviceOf(api, env, nameArg);
    return { items: await api.list(view.route(svc.id)), single: false, environmentId: svc.environmentId };
  }
  const environmentId = view.scope === 'environment' ? (await environmentOf(api, env)).id : undefined;
  const items = await api.list(view.route(environmentId ?? '') + (selector !== undefined ? `?labelSelector=${encodeURIComponent(selector)}` : ''));
  if (!nameArg) return { items, single: false, environmentId };
  const matching = items.filter((i) => i.name === nameArg || i.id === nameArg || i.key === nameArg);
  return { items: matching, single: true, environmentId };
}

/** One item of a kind that has item routes, by name (key for vars and secrets) or id: `{kindName, view, item}`. */
export async function oneOf(api: ApiClient, word: string, env: string | undefined, nameArg: string, verb: string): Promise<{ kindName: string; view: KindView; item: any }> {
  const [kindName, view] = kindOf(word);
  if (!view.item) throw new UsageError(`${verb} reaches ${Object.entries(KINDS).filter(([, v]) => v.item).map(([k]) => k).join(', ')}; not ${kindName}`);
  const { items } = await listKind(api, view, env, nameArg);
  if (!items.length) throw new CliError(`no ${kindName.replace(/s$/, '')} ${nameArg}${view.scope === 'environment' ? ' in this environment' : ''}`);
  return { kindName, view, item: items[0] };
}

/** `service/web`, `var/GREETING`: how a command names what it changed. */
export const labelOf = (kindName: string, item: { name?: string; key?: string; id: string }) =>
  `${kindName.replace(/ies$/, 'y').replace(/s$/, '')}/${item.name ?? item.key ?? item.id}`;
