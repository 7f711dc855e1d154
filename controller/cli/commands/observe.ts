import type { Command } from 'commander';
import { UsageError } from '../cli-error.js';
import { contextOf, envOption, out } from '../command-context.js';
import { age, formatTable } from '../format-table.js';
import { outputFormat, render } from '../output.js';
import { environmentOf } from '../resolve.js';
import { readSse } from '../sse-client.js';

interface EventItem { id: number; type: string; at: string; data: Record<string, any> }

/** What an event is about, in a few words: its object's name and status, or its message. */
export function eventSummary(type: string, d: Record<string, any>): string {
  const parts: string[] = [];
  const name = d.serviceName ?? d.name ?? d.containerName ?? d.planName ?? d.serverName ?? d.checkName;
  if (name) parts.push(String(name));
  if (d.containerName && d.containerName !== name) parts.push(String(d.containerName));
  if (d.serverName && d.serverName !== name) parts.push(`on ${d.serverName}`);
  for (const k of ['status', 'phase', 'reason', 'drifted']) if (d[k] !== undefined && d[k] !== null) parts.push(`${k}=${typeof d[k] === 'object' ? JSON.stringify(d[k]) : d[k]}`);
  if (d.error ?? d.message) parts.push(String(d.error ?? d.message).split('\n')[0]);
  if (!parts.length && (d.planId ?? d.deploymentId ?? d.serverId)) parts.push(String(d.planId ?? d.deploymentId ?? d.serverId));
  return parts.join(' ') || type;
}

const eventRow = (e: EventItem) => [age(e.at), e.type, eventSummary(e.type, e.data), e.id];

/**
 * `events [-e ENV] [-w]`: the environment's recent events, oldest of them first (GET
 * /api/environments/{envId}/events); -w then follows GET /api/events from the newest listed, so
 * nothing between the listing and the stream is lost.
 */
async function events(opts: { watch?: boolean; limit: string; output?: string }, cmd: Command): Promise<void> {
  const { api, environment } = contextOf(cmd);
  const format = outputFormat(opts.output);
  if (!/^\d+$/.test(opts.limit) || Number(opts.limit) < 1 || Number(opts.limit) > 200) throw new UsageError(`--limit ${opts.limit}: a number from 1 to 200`);
  const env = await environmentOf(api, environment);
  const page = await api.get<{ items: EventItem[] }>(`/api/environments/${env.id}/events?limit=${opts.limit}`);
  const items = [...page.items].reverse();
  const columns = [{ header: 'age', cell: (e: EventItem) => age(e.at) }, { header: 'type', cell: (e: EventItem) => e.type },
    { header: 'about', cell: (e: EventItem) => eventSummary(e.type, e.data) }, { header: 'id', cell: (e: EventItem) => e.id, wide: true }];
  if (format === 'json' || format === 'yaml') {
    if (opts.watch) for (const e of items) out(`${JSON.stringify(e)}\n`);
    else out(render(items, [], format));
  } else out(render(items, columns, format));
  if (!opts.watch) return;
  let last = items.length ? items[items.length - 1].id : 0;
  for (;;) {
    await readSse(api, `/api/events?environmentId=${env.id}${last ? `&lastEventId=${last}` : ''}`, (f) => {
      if (f.event === 'heartbeat' || f.event === 'message' || f.event === 'notification.created') return;
      const id = Number(f.id);
      if (Number.isFinite(id)) last = Math.max(last, id);
      const e: EventItem = { id, type: f.event, at: f.data?.at ?? new Date().toISOString(), data: f.data ?? {} };
      if (format === 'json' || format === 'yaml') out(`${JSON.stringify(e)}\n`);
      else out(`${formatTable(['age', 'type', 'about', ...(format === 'wide' ? ['id'] : [])], [eventRow(e).slice(0, format === 'wide' ? 4 : 3)]).split('\n').slice(1).join('\n')}`);
    });
  }
}

const pct = (v: number | null | undefined) => (v == null ? '' : `${v.toFixed(1)}%`);
const bytes = (v: number | null | undefined) => {
  if (v == null) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let n = v;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)}${units[i]}`;
};
const usedOf = (used?: number | null, total?: number | null) => (used == null ? '' : `${bytes(used)}${total ? `/${bytes(total)}` : ''}`);

/** `top servers|services -e ENV`: the newest monitoring sample of each server, or each container's CPU and memory (docs/monitoring.md). */
async function top(what: string, opts: { output?: string }, cmd: Command): Promise<void> {
  const { api, environment } = contextOf(cmd);
  const format = outputFormat(opts.output);
  if (!['servers', 'server', 'services', 'service', 'svc'].includes(what)) throw new UsageError(`top ${what}: top servers or top services`);
  const env = await environmentOf(api, environment);
  if (what.startsWith('server')) {
    const summary = await api.get<{ servers: Array<{ name: string; metricsMode: string; stale: boolean; sample: Record<string, any> | null }> }>(`/api/environments/${env.id}/monitoring/summary`);
    out(render(summary.servers, [
      { header: 'name', cell: (x) => x.name },
      { header: 'cpu', cell: (x) => pct(x.sample?.cpuPercent) },
      { header: 'memory', cell: (x) => usedOf(x.sample?.memoryUsedBytes, x.sample?.memoryTotalBytes) },
      { header: 'disk', cell: (x) => usedOf(x.sample?.diskUsedBytes, x.sample?.diskTotalBytes) },
      { header: 'load1', cell: (x) => x.sample?.load1 },
      { header: 'containers', cell: (x) => x.sample?.containers?.length },
      { header: 'sampled', cell: (x) => (x.sample ? `${age(x.sample.at)}${x.stale ? ' (stale)' : ''}` : x.metricsMode === 'disabled' ? 'metrics disabled' : 'no sample yet') },
    ], format));
    return;
  }
  const services = await api.list<{ id: string; name: string }>(`/api/environments/${env.id}/services`);
  const rows = (await Promise.all(services.map(async (svc) => (await api.get<{ items: any[] }>(`/api/services/${svc.id}/metrics`)).items.map((d) => ({ service: svc.name, ...d }))))).flat();
  out(render(rows, [
    { header: 'service', cell: (x) => x.service },
    { header: 'container', cell: (x) => x.containerName },
    { header: 'server', cell: (x) => x.serverName },
    { header: 'cpu', cell: (x) => pct(x.cpuPercent) },
    { header: 'memory', cell: (x) => usedOf(x.memoryUsedBytes, x.memoryLimitBytes) },
    { header: 'sampled', cell: (x) => (x.at ? age(x.at) : 'no sample yet') },
  ], format));
}

export function registerObserveCommands(program: Command): void {
  program.command('events').description("the environment's recent events (plans, deployments, health, drift); -w then follows them")
    .addOption(envOption())
    .option('-w, --watch', 'then print each new event as it happens (until Ctrl-C)')
    .option('--limit <n>', 'how many recent events to list (1-200)', '50')
    .option('-o, --output <format>', 'table, wide, json or yaml (with -w: one JSON line per event)', 'table')
    .action(events);
  program.command('top').argument('<what>', 'servers or services').description("the newest resource usage: each server's CPU, memory, disk and load, or each container's CPU and memory")
    .addOption(envOption())
    .option('-o, --output <format>', 'table, wide, json or yaml', 'table')
    .action(top);
}
