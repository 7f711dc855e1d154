// A finished plan's `error` says what happened, by name: "step web on s1 failed: <cause>".
import type { Services } from '../../../controller/services.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';

export async function failureSummary(s: Pick<Services, 'servers' | 'services'>, steps: PlanStepRow[]): Promise<string> {
  const failed = steps.filter((x) => x.status === 'failed' || (x.status === 'rolled_back' && x.error));
  const first = failed[0];
  if (!first) return 'a step failed';
  const [service, server] = await Promise.all([
    first.serviceId ? s.services.findById(first.serviceId) : undefined,
    first.serverId ? s.servers.findById(first.serverId) : undefined,
  ]);
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more step${failed.length > 2 ? 's' : ''})` : '';
  return `step ${service?.name ?? first.containerName} on ${server?.name ?? first.serverId ?? 'its server'} failed: ${first.error ?? 'unknown error'}${more}`.slice(0, 4000);
}
