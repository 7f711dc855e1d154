// The deployment reconciler (key "deployment/<id>"): a Docker event of its container, the
// periodic resync or the end of a plan says "look again"; it observes the one container,
// records Drifted/Ready and the observed status, and with driftPolicy 'heal' asks for a heal.
import type { Services } from '../../controller/services.js';
import type { ReconcileResult } from '../../controller/queue/work-queue.js';
import { driftOf } from './drift.js';
import { heal, healDecision, recordDrift } from './reconcile-drift.js';
import { operationsOf } from './load-desired.js';

export const DEPLOYMENT_KIND = 'deployment';
export const deploymentKey = (id: string) => `${DEPLOYMENT_KIND}/${id}`;

export async function reconcileDeployment(s: Services, id: string): Promise<ReconcileResult | void> {
  const d = await s.deployments.findById(id);
  // deleted, or never deployed: nothing is desired on a server
  if (!d?.imageTag) return;
  const { driftPolicy: policy } = await operationsOf(s, d.environmentId);
  if (policy === 'off') return;
  // in motion, not drifted: the plan's end enqueues this key again
  if ((await s.plans.steps.deploymentsInMotion([d.id])).size) return;
  const [item] = await driftOf(s, [d]);
  await recordDrift(s, item!, d);
  if (policy !== 'heal' || !item!.drifted) return;
  const decision = await healDecision(s, d);
  if (decision.heal) await heal(s, d.environmentId, [item!]);
  else if (decision.retryInMs !== undefined) return { requeueAfterMs: decision.retryInMs };
}
