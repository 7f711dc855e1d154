import type { Command } from 'commander';
import { UsageError } from '../cli-error.js';
import { contextOf, envOption, out } from '../command-context.js';
import { setExitCode } from '../exit-code.js';
import { serverNames, serviceOf } from '../resolve.js';

interface Run { status: 'running' | 'succeeded' | 'failed'; exitCode: number | null; logTail: string; reason: string | null; containerName: string }

/** How often the CLI asks for the run's status while it runs. */
const POLL_MS = 1_000;

/**
 * `run SERVICE [-s SERVER] -- CMD…`: a one-off container from the service's current revision
 * (docs/exec.md#one-off-runs); waits for its end, prints the tail of its output and exits with
 * the command's exit code (1 when it could not run, with the reason on stderr).
 */
async function run(service: string, command: string[], opts: { server?: string }, cmd: Command): Promise<void> {
  if (!command.length) throw new UsageError('run needs a command after --, e.g. stevedore run web -- sh -c "echo $HOME"');
  const c = contextOf(cmd);
  const svc = await serviceOf(c.api, c.environment, service);
  let serverId: string | undefined;
  if (opts.server) {
    const servers = await serverNames(c.api, svc.environmentId);
    serverId = servers.has(opts.server) ? opts.server : [...servers].find(([, name]) => name === opts.server)?.[0];
    if (!serverId) throw new UsageError(`no server ${opts.server} in the environment of ${svc.name}`);
  }
  const { runId } = await c.api.post<{ runId: string }>(`/api/services/${svc.id}/run`, { command, ...(serverId && { serverId }) });
  let r = await c.api.get<Run>(`/api/runs/${runId}`);
  while (r.status === 'running') {
    await new Promise((res) => setTimeout(res, POLL_MS));
    r = await c.api.get<Run>(`/api/runs/${runId}`);
  }
  if (r.logTail) out(r.logTail);
  if (r.exitCode === null) {
    process.stderr.write(`stevedore: run ${runId} failed: ${r.reason ?? 'unknown reason'}\n`);
    setExitCode(1);
    return;
  }
  setExitCode(r.exitCode);
}

export function registerRunCommands(program: Command): void {
  program.command('run').argument('<service>').argument('[command...]', 'the command and its arguments, after --')
    .description("run a command once in a new container from the service's current revision, and remove it")
    .addOption(envOption())
    .option('-s, --server <server>', 'on this server (name or id); default one the service runs on')
    .action(run);
}
