// Whether a deployment's container differs from its desired state, through the pure plan():
// the entrance asks it before handing a no-op to the engine, the dry run shows it per step.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { plan, type Action } from '../deployment/plan.js';
import { actualOf, desiredOf } from '../deployment/observe.js';

export interface DeploymentDiff {
  /** What plan() would do; empty: the container is as desired. */
  actions: Action[];
  /** Set when the server could not be asked: the difference is unknown. */
  error?: string;
}

/** `imageTag`: the tag a step would deploy (default: the service's desired tag). */
export async function diffDeployment(s: Services, d: DeploymentRow, imageTag?: string | null): Promise<DeploymentDiff> {
  const desired = await desiredOf(s, d);
  if (imageTag && desired.image) desired.image = desired.image.replace(/:[^:/]+$/, `:${imageTag}`);
  if (!desired.image) {
    return { actions: [{ type: 'redeploy', deploymentId: d.id, reason: 'ContainerMissing', message: `${d.containerName} was never deployed` }] };
  }
  try {
    return { actions: plan(desired, await actualOf(s, d)) };
  } catch (e) {
    return { actions: [], error: messageOf(e) };
  }
}

/** A deployment a converging request must include: it differs, or nobody could tell. */
export const needsRollout = (diff: DeploymentDiff) => diff.actions.length > 0 || diff.error !== undefined;
