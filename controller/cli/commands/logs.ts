import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { contextOf, envOption, out } from '../command-context.js';
import { readSse } from '../sse-client.js';
import { serviceOf } from '../resolve.js';

interface Deployment { id: string; serverId: string; containerName: string }

/**
 * `logs SERVICE [-f] [--server S]`: the output of the service's containers, prefixed with the
 * server when there are several; -f follows every one of them (until Ctrl-C).
 */
async function logs(service: string, opts: { follow?: boolean; server?: string; tail: string }, cmd: Command): Promise<void> {
  const c = contextOf(cmd);
  const svc = await serviceOf(c.api, c.environment, service);
  const servers = new Map((await c.api.list<{ id: string; name: string }>(`/api/environments/${svc.environmentId}/servers`)).map((s) => [s.id, s.name]));
  let deployments = await c.api.list<Deployment>(`/api/services/${svc.id}/deployments`);
  if (opts.server) deployments = deployments.filter((d) => d.serverId === opts.server || servers.get(d.serverId) === opts.server);
  if (!deployments.length) throw new CliError(`${svc.name} has no deployment${opts.server ? ` on ${opts.server}` : ''}`);
  const prefix = (d: Deployment) => (deployments.length > 1 ? `[${servers.get(d.serverId) ?? d.serverId}] ` : '');
  const tail = Number(opts.tail);
  if (!opts.follow) {
    for (const d of deployments) {
      const r = await c.api.get<{ lines: Array<{ line: string }> }>(`/api/services/${svc.id}/deployments/${d.id}/logs?tail=${tail}`);
      for (const l of r.lines) out(`${prefix(d)}${l.line}\n`);
    }
    return;
  }
  await Promise.all(deployments.map((d) => readSse(c.api, `/api/services/${svc.id}/deployments/${d.id}/logs/stream?tail=${tail}`, (f) => {
    if (f.event === 'log') out(`${prefix(d)}${f.data.line}\n`);
  })));
}

export function registerLogsCommands(program: Command): void {
  program.command('logs').argument('<service>').description('the output of a service\'s containers')
    .addOption(envOption())
    .option('-f, --follow', 'keep printing new lines')
    .option('--server <server>', 'only the container on this server (name or id)')
    .option('--tail <n>', 'lines of history first', '50')
    .action(logs);
}
