import type { Command } from 'commander';
import { UsageError } from '../cli-error.js';
import { parseDuration } from '../duration.js';
import { contextOf, envOption, out } from '../command-context.js';
import { readSse } from '../sse-client.js';
import { deploymentsOf, serviceOf, type ServiceDeployment as Deployment } from '../resolve.js';

/**
 * `logs SERVICE [-f] [--server S] [--tail N] [--since D]`: the output of the service's containers, prefixed with the
 * server when there are several; -f follows every one of them (until Ctrl-C).
 */
async function logs(service: string, opts: { follow?: boolean; server?: string; tail: string; since?: string }, cmd: Command): Promise<void> {
  if (!/^\d+$/.test(opts.tail)) throw new UsageError(`--tail ${opts.tail} is not a number`);
  // Docker counts whole seconds; the API takes up to 30 days
  const sinceSec = opts.since === undefined ? undefined : Math.max(1, Math.ceil(parseDuration(opts.since) / 1000));
  if (sinceSec !== undefined && sinceSec > 30 * 86_400) throw new UsageError(`--since ${opts.since}: at most 30 days (720h)`);
  const since = sinceSec === undefined ? '' : `&sinceSec=${sinceSec}`;
  const c = contextOf(cmd);
  const svc = await serviceOf(c.api, c.environment, service);
  const { deployments, servers } = await deploymentsOf(c.api, svc, opts.server);
  const prefix = (d: Deployment) => (deployments.length > 1 ? `[${servers.get(d.serverId) ?? d.serverId}] ` : '');
  const tail = Number(opts.tail);
  if (!opts.follow) {
    for (const d of deployments) {
      const r = await c.api.get<{ lines: Array<{ line: string }> }>(`/api/services/${svc.id}/deployments/${d.id}/logs?tail=${tail}${since}`);
      for (const l of r.lines) out(`${prefix(d)}${l.line}\n`);
    }
    return;
  }
  await Promise.all(deployments.map((d) => readSse(c.api, `/api/services/${svc.id}/deployments/${d.id}/logs/stream?tail=${tail}${since}`, (f) => {
    if (f.event === 'log') out(`${prefix(d)}${f.data.line}\n`);
  })));
}

export function registerLogsCommands(program: Command): void {
  program.command('logs').argument('<service>').description('the output of a service\'s containers')
    .addOption(envOption())
    .option('-f, --follow', 'keep printing new lines')
    .option('--server <server>', 'only the container on this server (name or id)')
    .option('--tail <n>', 'lines of history first', '50')
    .option('--since <duration>', 'only lines of the last DURATION (30s, 5m, 2h)')
    .action(logs);
}
