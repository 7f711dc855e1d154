import type { Command } from 'commander';
import type { ApiClient } from '../api-client.js';
import { CliError, UsageError } from '../cli-error.js';
import { contextOf, envOption, out, type CommandContext } from '../command-context.js';
import { parseDuration, parseWaitFor } from '../duration.js';
import { followPlan } from '../follow-plan.js';
import { waveLine } from '../plan-display.js';
import { formatTable } from '../format-table.js';
import { KINDS } from '../kinds.js';
import { outputFormat, render } from '../output.js';
import { serviceOf } from '../resolve.js';

/** Follows the plan with --wait, else names it and how to follow it. */
async function started(c: CommandContext, plan: { id: string }, wait: boolean): Promise<void> {
  if (!wait) {
    out(`Started plan ${plan.id} (follow it: stevedore plan follow ${plan.id}).\n`);
    return;
  }
  const done = await followPlan(c.api, plan.id, c.palette, out, c.live);
  out(`Plan ${done.id} succeeded.\n`);
}

async function deploy(service: string, opts: { tag?: string; wait?: boolean }, cmd: Command): Promise<void> {
  const c = contextOf(cmd);
  const svc = await serviceOf(c.api, c.environment, service);
  const plan = await c.api.post(`/api/services/${svc.id}/deploy`, opts.tag ? { imageTag: opts.tag } : {});
  await started(c, plan, !!opts.wait);
}

/** The revision before the current one that fully succeeded: what `rollback` returns to. */
export function rollbackTarget(revisions: Array<{ revision: number; outcome: string }>, current: number | null): number {
  const before = revisions.filter((r) => r.outcome === 'succeeded' && (current === null || r.revision < current)).sort((a, b) => b.revision - a.revision)[0];
  if (!before) throw new CliError(`no revision before ${current ?? 'the current one'} that succeeded: nothing to roll back to`);
  return before.revision;
}

async function revert(c: CommandContext, svc: { id: string }, revision: number, wait: boolean): Promise<void> {
  const plan = await c.api.post(`/api/services/${svc.id}/revisions/${revision}/revert`);
  out(`Reverting to revision ${revision}.\n`);
  await started(c, plan, wait);
}

async function waitFor(api: ApiClient, serviceId: string, want: { type: string; status: string }, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const svc = await api.get(`/api/services/${serviceId}`);
    const c = (svc.conditions ?? []).find((x: { type: string }) => x.type === want.type);
    const current = svc.observedGeneration == null || svc.observedGeneration === svc.generation;
    if (c?.status === want.status && current) return svc;
    if (Date.now() >= deadline) {
      throw new CliError(`timed out waiting for ${svc.name} to be ${want.type}=${want.status}: it is ${c ? `${c.status} (${c.reason}: ${c.message})` : 'without that condition'}`);
    }
    // a CLI polling its controller once a second, like kubectl wait's watch fallback
    await new Promise((r) => setTimeout(r, Math.min(1000, Math.max(0, deadline - Date.now()))));
  }
}

export function registerDeployCommands(program: Command): void {
  program.command('deploy').argument('<service>').description('deploy a service (its tag, or --tag) through a plan')
    .addOption(envOption()).option('--tag <tag>', 'image tag to deploy').option('--wait', 'follow the plan; exit 1 when it does not succeed')
    .action(deploy);
  program.command('rollback').argument('<service>').description('revert a service to its previous revision that succeeded')
    .addOption(envOption()).option('--wait', 'follow the plan')
    .action(async (service: string, opts: { wait?: boolean }, cmd: Command) => {
      const c = contextOf(cmd);
      const svc = await serviceOf(c.api, c.environment, service);
      await revert(c, svc, rollbackTarget(await c.api.list(`/api/services/${svc.id}/revisions`), svc.currentRevision), !!opts.wait);
    });
  program.command('revisions').argument('<service>').description('the revisions of a service, newest first')
    .addOption(envOption()).option('-o, --output <format>', 'table, wide, json or yaml', 'table')
    .action(async (service: string, opts: { output?: string }, cmd: Command) => {
      const c = contextOf(cmd);
      const svc = await serviceOf(c.api, c.environment, service);
      out(render(await c.api.list(`/api/services/${svc.id}/revisions`), KINDS.revisions.columns, outputFormat(opts.output)));
    });
  program.command('revert').argument('<service>').argument('<revision>', 'revision number').description('deploy an earlier revision of a service again')
    .addOption(envOption()).option('--wait', 'follow the plan')
    .action(async (service: string, revision: string, opts: { wait?: boolean }, cmd: Command) => {
      if (!/^\d+$/.test(revision)) throw new UsageError(`revision ${revision} is not a number`);
      const c = contextOf(cmd);
      await revert(c, await serviceOf(c.api, c.environment, service), Number(revision), !!opts.wait);
    });
  const plan = program.command('plan').description('read, follow, promote, pause or resume a deployment plan');
  plan.command('get').argument('<id>').option('-o, --output <format>', 'table, json or yaml', 'table').description('a plan and its steps')
    .action(async (id: string, opts: { output?: string }, cmd: Command) => {
      const c = contextOf(cmd);
      const p = await c.api.get(`/api/deployment-plans/${id}`);
      const format = outputFormat(opts.output);
      if (format === 'json' || format === 'yaml') return out(render([p], [], format, true));
      out(`Plan ${p.id} (${p.name}): ${p.status}${p.error ? `: ${p.error}` : ''}\n`);
      out(formatTable(['position', 'container', 'action', 'tag', 'status', 'took', 'error'], p.steps.map((s: any) =>
        [s.position, s.containerName, s.action, s.imageTag, s.status, s.durationMs == null ? '' : `${(s.durationMs / 1000).toFixed(1)}s`, s.error])));
    });
  plan.command('follow').argument('<id>').description('each step as it happens until the plan ends (exit 1 unless it succeeded)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const c = contextOf(cmd);
      const done = await followPlan(c.api, id, c.palette, out, c.live);
      out(`Plan ${done.id} succeeded.\n`);
    });
  // the plan's wave operations (docs/progressive-delivery.md); a plan that cannot is 409, one line, exit 1
  const waveOps: Array<[string, string, string]> = [
    ['promote', 'end the pause a plan with waves is in (pause: true, a pauseSec wait, or an operator pause): the next wave starts', 'promoted'],
    ['pause', 'stop a running plan with waves at its next wave boundary, until resumed or promoted', 'pausing at its next wave boundary'],
    ['resume', "lift an operator's pause (a rollout's own pause ends with promote)", 'resumed'],
  ];
  for (const [verb, description, done] of waveOps) {
    plan.command(verb).argument('<id>').description(description)
      .action(async (id: string, _o: unknown, cmd: Command) => {
        const c = contextOf(cmd);
        const p = await c.api.post(`/api/deployment-plans/${encodeURIComponent(id)}/${verb}`);
        const wave = waveLine(p.currentWave);
        out(`plan ${p.id} ${done}: ${p.status}${wave ? `, ${wave}` : ''}\n`);
      });
  }
  program.command('wait').argument('<service>').description('wait until a condition of a service holds (exit 1 on timeout)')
    .addOption(envOption()).requiredOption('--for <condition>', 'condition=Ready, or condition=NAME=True|False')
    .option('--timeout <duration>', 'give up after (30s, 5m, 1h)', '5m')
    .action(async (service: string, opts: { for: string; timeout: string }, cmd: Command) => {
      const want = parseWaitFor(opts.for);
      const timeoutMs = parseDuration(opts.timeout);
      const c = contextOf(cmd);
      const svc = await serviceOf(c.api, c.environment, service);
      await waitFor(c.api, svc.id, want, timeoutMs);
      out(`service/${svc.name} condition met: ${want.type}=${want.status}\n`);
    });
}
