// Whether a deployment's container differs from its desired state, through the pure plan():
// the entrance asks it before handing a no-op to the engine, the dry run shows it per step.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { lookAt, type LookServices } from '../deployment/observe-and-record.js';
import type { Difference, PlanAction } from '../deployment/plan.js';

export interface DeploymentDiff {
  /** What plan() would do ('none': the container is as desired). */
  action: PlanAction;
  differences: Difference[];
  /** Set when the server could not be asked: the difference is unknown. */
  error?: string;
}

/** `imageTag`: the tag a step would deploy (default: the service's desired tag). */
export async function diffDeployment(s: LookServices, d: DeploymentRow, imageTag?: string | null): Promise<DeploymentDiff> {
  const look = await lookAt(s, d, imageTag ? { imageTag } : {});
  const ob = look.observation;
  if (ob.kind === 'not-deployed') {
    return { action: 'create', differences: [{ field: 'state', reason: 'ContainerMissing', message: `${d.containerName} was never deployed` }] };
  }
  if (ob.kind === 'unreachable') return { action: 'none', differences: [], error: ob.message };
  return { action: ob.plan.action, differences: ob.plan.differences };
}

/** A deployment a converging request must include: it differs, or nobody could tell. */
export const needsRollout = (diff: DeploymentDiff) => diff.action !== 'none' || diff.error !== undefined;
