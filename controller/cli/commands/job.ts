import type { Command } from 'commander';
import { contextOf, envOption, out } from '../command-context.js';
import { age } from '../format-table.js';
import { environmentOf, itemOf } from '../resolve.js';
import { outputFormat, render, type Column } from '../output.js';

const duration = (ms: number | null | undefined) => (ms === null || ms === undefined ? '' : ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`);

const RUN_COLUMNS: Column[] = [
  { header: 'scheduled', cell: (r) => r.scheduledAt },
  { header: 'trigger', cell: (r) => r.trigger },
  { header: 'status', cell: (r) => r.status },
  { header: 'exit', cell: (r) => r.exitCode },
  { header: 'duration', cell: (r) => duration(r.durationMs) },
  { header: 'reason', cell: (r) => r.reason },
  { header: 'run', cell: (r) => r.runId, wide: true },
  { header: 'by', cell: (r) => r.createdBy, wide: true },
  { header: 'age', cell: (r) => age(r.createdAt) },
];

const jobOf = async (cmd: Command, name: string) => {
  const c = contextOf(cmd);
  const env = await environmentOf(c.api, c.environment);
  return { c, job: await itemOf(c.api, env.id, 'jobs', name, 'job') };
};

/** `job trigger NAME`: a run now, under the job's concurrency policy; prints the run to follow. */
async function trigger(name: string, _o: unknown, cmd: Command): Promise<void> {
  const { c, job } = await jobOf(cmd, name);
  const r = await c.api.post<{ jobRunId: string; runId: string }>(`/api/jobs/${job.id}/trigger`, {});
  out(`job/${job.name} triggered: run ${r.runId} (stevedore job runs ${job.name})\n`);
}

/** `job runs NAME`: the job's history, newest first. */
async function runs(name: string, _o: unknown, cmd: Command): Promise<void> {
  const { c, job } = await jobOf(cmd, name);
  const page = await c.api.get<{ items: any[] }>(`/api/jobs/${job.id}/runs?limit=${Number(c.opts.limit ?? 20)}`);
  out(render(page.items, RUN_COLUMNS, outputFormat(c.opts.output)));
}

export function registerJobCommands(program: Command): void {
  const job = program.command('job').description('scheduled jobs: run one now, list its runs (list jobs with stevedore get jobs)');
  job.command('trigger').argument('<name>', 'the job').description("run the job now, outside its schedule, under its concurrency policy")
    .addOption(envOption())
    .action(trigger);
  job.command('runs').argument('<name>', 'the job').description('the runs of a job, newest first: status, exit code, duration, reason')
    .addOption(envOption())
    .option('-o, --output <format>', 'table, wide, json or yaml', 'table')
    .option('--limit <n>', 'how many runs', '20')
    .action(runs);
}
