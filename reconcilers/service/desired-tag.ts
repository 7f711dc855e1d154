// Desired tags written outside a new plan: a manual rollback is a request to run what it restored.
import type { Services } from '../../controller/services.js';
import type { PlanStepRow } from '../../controller/store/repositories/plan-steps.js';

/** After a manual rollback, each service whose steps all went back to one tag desires that tag. */
export async function restoreDesiredTags(s: Services, steps: PlanStepRow[]): Promise<void> {
  const byService = new Map<string, Set<string | null>>();
  for (const st of steps.filter((x) => x.serviceId && x.status === 'rolled_back')) {
    byService.set(st.serviceId!, (byService.get(st.serviceId!) ?? new Set()).add(st.previousImageTag));
  }
  for (const [serviceId, tags] of byService) {
    const [tag] = [...tags];
    if (tags.size === 1 && tag) await s.services.writeDesiredTag(serviceId, tag);
  }
}
