import type { Command } from 'commander';
import { UsageError } from '../cli-error.js';
import { contextOf, envOption, out, type CommandContext } from '../command-context.js';
import { setExitCode } from '../exit-code.js';
import { deploymentsOf, serviceOf, type ServiceDeployment } from '../resolve.js';
import { interactiveExec } from './exec-interactive.js';

/** What timeout(1) answers for a command that ran out of time. */
export const EXIT_TIMED_OUT = 124;

/** The one deployment of the service to enter: the only one, or the one on `-s SERVER`. */
export async function deploymentToEnter(c: CommandContext, service: string, server?: string): Promise<{ serviceId: string; deployment: ServiceDeployment }> {
  const svc = await serviceOf(c.api, c.environment, service);
  const { deployments, servers } = await deploymentsOf(c.api, svc, server);
  if (deployments.length > 1) {
    const names = deployments.map((d) => servers.get(d.serverId) ?? d.serverId).join(', ');
    throw new UsageError(`${svc.name} runs on several servers (${names}): choose one with -s SERVER`);
  }
  return { serviceId: svc.id, deployment: deployments[0]! };
}

/**
 * `exec SERVICE [-s SERVER] [-it] -- CMD…`: the command's output on stdout and its exit code as
 * the CLI's; -it opens an interactive session with the local terminal in raw mode.
 */
async function exec(service: string, command: string[], opts: { server?: string; interactive?: boolean; tty?: boolean; timeout?: string }, cmd: Command): Promise<void> {
  if (!command.length) throw new UsageError('exec needs a command after --, e.g. stevedore exec web -- cat /etc/hostname');
  const c = contextOf(cmd);
  const { serviceId, deployment } = await deploymentToEnter(c, service, opts.server);
  const path = `/api/services/${serviceId}/deployments/${deployment.id}/exec`;
  if (opts.interactive || opts.tty) {
    setExitCode(await interactiveExec(c, `${path}/ws`, command));
    return;
  }
  const timeoutSec = opts.timeout === undefined ? undefined : Number(opts.timeout);
  if (timeoutSec !== undefined && !(Number.isInteger(timeoutSec) && timeoutSec >= 1)) throw new UsageError('--timeout must be a whole number of seconds');
  const r = await c.api.post<{ exitCode: number | null; output: string; truncated: boolean; timedOut: boolean }>(path, { command, ...(timeoutSec && { timeoutSec }) });
  out(r.output);
  if (r.truncated) process.stderr.write('stevedore: the output was cut at 1 MiB\n');
  if (r.timedOut || r.exitCode === null) {
    process.stderr.write(`stevedore: the command did not end within ${timeoutSec ?? 60} s (it may still run in ${deployment.containerName})\n`);
    setExitCode(EXIT_TIMED_OUT);
    return;
  }
  setExitCode(r.exitCode);
}

export function registerExecCommands(program: Command): void {
  program.command('exec').argument('<service>').argument('[command...]', 'the command and its arguments, after --')
    .description('run a command in a service\'s running container')
    .addOption(envOption())
    .option('-s, --server <server>', 'the container on this server (name or id), when the service runs on several')
    .option('-i, --interactive', 'an interactive session: stdin goes to the command')
    .option('-t, --tty', 'the same, with the local terminal in raw mode (-it)')
    .option('--timeout <seconds>', 'without -it: give up waiting after this long (default 60)')
    .action(exec);
}
