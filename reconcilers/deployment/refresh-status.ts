// "Look now": the runtime status of deployments observed on their servers at once, through the
// same observe-and-record path the reconciler takes on a Docker event, without healing.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { observeDrift } from './reconcile-drift.js';

export interface RefreshedDeployment {
  deploymentId: string;
  /** null: the server could not be asked (status is then 'unknown'). */
  drifted: boolean | null;
  reasons: string[];
  /** Why the server could not be asked. */
  error?: string;
}

/**
 * Observes each deployment that has been deployed and records its conditions and status (and the
 * drift events when that changed). Deployments never deployed are left as they are: nothing on a
 * server is theirs to look at.
 */
export async function refreshStatus(s: Services, deployments: DeploymentRow[]): Promise<RefreshedDeployment[]> {
  const deployed = deployments.filter((d) => d.imageTag);
  const items = await observeDrift(s, deployed);
  return items.map((i) => ({
    deploymentId: i.deploymentId, drifted: i.drifted, reasons: i.actions.map((a) => String(a.reason)), ...(i.error && { error: i.error }),
  }));
}
