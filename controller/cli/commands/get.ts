import type { Command } from 'commander';
import { CliError, UsageError } from '../cli-error.js';
import { contextOf, envOption, out } from '../command-context.js';
import { age, formatTable } from '../format-table.js';
import { kindOf, listKind, type KindView } from '../kinds.js';
import type { ApiClient } from '../api-client.js';
import { outputFormat, render } from '../output.js';
import { serviceOf } from '../resolve.js';
import { watchKind } from '../watch-kind.js';

/**
 * `get KIND -A`: the kind in every environment the caller sees, with an ENVIRONMENT column first
 * (in JSON and YAML each item's environmentId says it).
 */
async function getAll(api: ApiClient, view: KindView, kind: string, nameArg: string | undefined, opts: Record<string, any>): Promise<void> {
  if (view.scope !== 'environment') throw new UsageError(`-A lists what lives in environments; ${kind} ${view.scope === 'global' ? 'are not in one' : 'belong to a service'}`);
  if (opts.watch) throw new UsageError('-w follows one environment: pass -e ENV instead of -A');
  if (opts.env) throw new UsageError('-A lists every environment: not with -e');
  const format = outputFormat(opts.output);
  const envs = await api.list<{ id: string; name: string }>('/api/environments');
  const where = new Map<object, string>();
  const items: any[] = [];
  for (const env of envs) {
    const found = (await listKind(api, view, env.id, nameArg, opts.selector)).items;
    for (const i of found) where.set(i, env.name);
    items.push(...found);
  }
  if (nameArg && !items.length) throw new CliError(`no ${kind} ${nameArg} in any environment`);
  out(render(items, [{ header: 'environment', cell: (i) => where.get(i) }, ...view.columns], format));
}

async function get(kind: string, nameArg: string | undefined, _o: unknown, cmd: Command): Promise<void> {
  const { api, environment, opts } = contextOf(cmd);
  const format = outputFormat(opts.output);
  const [, view] = kindOf(kind);
  if (opts.allEnvironments) return getAll(api, view, kind, nameArg, opts);
  const { items, single, environmentId } = await listKind(api, view, environment, nameArg, opts.selector);
  if (single && !items.length) throw new CliError(`no ${kind} ${nameArg}`);
  out(render(items, view.columns, format, single));
  if (opts.watch) await watchKind(api, view, environment, nameArg, format, items, environmentId, opts.selector);
}

/** `canary: servers 1, pause 60 s, servers 50%, pause; analysis 60 s` (docs/progressive-delivery.md). */
export function rolloutText(r: any): string {
  if (!r) return 'one server at a time (no rollout)';
  const steps = (r.steps ?? []).map((st: any) => ('servers' in st ? `servers ${st.servers}` : 'pauseSec' in st ? `pause ${st.pauseSec} s` : 'pause until promoted'));
  const parts = [r.strategy + (r.maxUnavailable !== undefined ? ` (maxUnavailable ${r.maxUnavailable})` : ''), ...(steps.length ? [steps.join(', ')] : [])];
  return `${parts.join(': ')}${r.analysis ? `; analysis ${r.analysis.durationSec} s` : ''}`;
}

const indent = (s: string) => s.split('\n').filter(Boolean).map((l) => `  ${l}`).join('\n');

/** `describe service NAME`: what kubectl describe shows, the spec, status, conditions, revisions and recent deploy steps. */
async function describe(kind: string, nameArg: string, _o: unknown, cmd: Command): Promise<void> {
  const { api, environment, opts } = contextOf(cmd);
  const [kindName, view] = kindOf(kind);
  if (kindName !== 'services') {
    // other kinds have no status of their own to gather: their read, as YAML
    if (view.scope === 'service') throw new UsageError(`${kindName} belong to a service: stevedore describe service SERVICE shows them`);
    const { items } = await listKind(api, view, environment, nameArg);
    if (!items.length) throw new CliError(`no ${kind} ${nameArg}`);
    out(render(items.slice(0, 1), [], opts.output === 'json' ? 'json' : 'yaml', true));
    return;
  }
  const svc = await serviceOf(api, environment, nameArg);
  const [revisions, history, ingress] = await Promise.all([
    api.get(`/api/services/${svc.id}/revisions?limit=5`),
    api.get(`/api/services/${svc.id}/deployments-history?limit=10`),
    svc.ingress ? api.get(`/api/services/${svc.id}/ingress`) : { hosts: [] },
  ]);
  if (['json', 'yaml'].includes(opts.output ?? '')) {
    out(render([{ ...svc, revisions: revisions.items, events: history.items, ...(svc.ingress && { ingressStatus: ingress }) }], [], outputFormat(opts.output), true));
    return;
  }
  const lines = [
    `Name:              ${svc.name}`,
    `Id:                ${svc.id}`,
    `Image tag:         ${svc.imageTag ?? '<none>'}`,
    `Ports:             ${(svc.ports ?? []).join(', ') || '<none>'}`,
    `Env:               ${Object.keys(svc.env ?? {}).join(', ') || '<none>'}`,
    `Restart policy:    ${svc.composeTemplate ? "the compose template's" : svc.restartPolicy}`,
    `Source:            ${svc.source?.kind ?? 'api'}${svc.source?.path ? ` (${svc.source.path})` : ''}`,
    `Placement:         ${svc.serverSelector ? `servers labelled ${Object.entries(svc.serverSelector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',')}` : 'the deployments below'}`,
    `Rollout:           ${rolloutText(svc.rollout)}`,
    `Desired revision:  ${svc.desiredRevision ?? '<none>'}`,
    `Current revision:  ${svc.currentRevision ?? '<none>'}`,
    `Failed revision:   ${svc.failedRevision ? `${svc.failedRevision.revision} (${svc.failedRevision.reason})` : '<none>'}`,
    'Conditions:',
    indent(formatTable(['type', 'status', 'reason', 'message'], (svc.conditions ?? []).map((c: any) => [c.type, c.status, c.reason, c.message]))),
    `Ingress:           ${ingressText(svc.ingress)}`,
    ...(svc.ingress ? [indent(formatTable(['host', 'certificate', 'server', 'routed', 'message'], ingress.hosts.flatMap((h: any) => h.servers.length
      ? h.servers.map((x: any) => [h.host, certificateText(h.certificate), x.serverName, x.routed ? 'yes' : 'no', x.message ?? ''])
      : [[h.host, certificateText(h.certificate), '<none>', 'no', 'no server runs the service']])))] : []),
    'Deployments:',
    indent(formatTable(['container', 'status', 'tag', 'revision'], (svc.deployments ?? []).map((d: any) => [d.containerName, d.status, d.imageTag, d.revision]))),
    'Revisions:',
    indent(formatTable(['revision', 'tag', 'outcome', 'source', 'age'], revisions.items.map((r: any) => [r.revision, r.imageTag, r.outcome, r.source, age(r.createdAt)]))),
    'Events:',
    indent(formatTable(['age', 'container', 'step', 'tag', 'plan', 'error'], history.items.map((h: any) => [age(h.finishedAt ?? h.startedAt), h.containerName, h.status, h.imageTag, h.planStatus, h.error]))),
  ];
  out(`${lines.join('\n')}\n`);
}

/** `app.example.com, www.example.com → :8080 /api (tls auto)` or <none>. */
function ingressText(i: any): string {
  if (!i) return '<none>';
  const tls = typeof i.tls === 'object' && i.tls ? `secret ${i.tls.secretRef}` : i.tls ?? 'auto';
  return `${i.hosts.join(', ')} → :${i.port} ${i.path ?? '/'} (tls ${tls})`;
}

const certificateText = (c: any) => [c.state, c.issuer, c.notAfter && `until ${String(c.notAfter).slice(0, 10)}`, c.error].filter(Boolean).join(', ');

export function registerGetCommands(program: Command): void {
  program.command('get').argument('<kind>', 'environments, servers, services, deployments, plans, revisions, images, registries, vars, secrets, config-files, databases, jobs')
    .argument('[name]', 'one item by name (for deployments and revisions: the service)')
    .description('list the items of a kind as a table, JSON or YAML')
    .addOption(envOption())
    .option('-o, --output <format>', 'table, wide, json or yaml', 'table')
    .option('-A, --all-environments', 'every environment the caller sees, with an ENVIRONMENT column')
    .option('-w, --watch', 'then print each item again when it changes (until Ctrl-C)')
    .option('-l, --selector <labels>', 'key=value,…: servers whose labels hold every pair, services whose serverSelector asks for them')
    .action(get);
  program.command('describe').argument('<kind>', 'service (any other kind: its read as YAML)').argument('<name>', 'its name or id')
    .description('a service in detail: spec, status and conditions, deployments, revisions, recent events')
    .addOption(envOption())
    .option('-o, --output <format>', 'text (default), json or yaml')
    .action(describe);
}
