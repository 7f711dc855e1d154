// Which of the compose path rules applies to one deployment now (compose-path-rules.ts decides).
import type { Services } from '../services.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import { decideCompose, type ComposeDecision } from './compose/compose-path-rules.js';

/** `ops`: the environment's operations settings when the caller read them already. */
export async function decisionFor(s: Pick<Services, 'deployments' | 'settings'>, d: DeploymentRow, ops?: { autoManageCompose: boolean }): Promise<ComposeDecision> {
  ops ??= await s.settings.get<{ autoManageCompose: boolean }>(d.environmentId, 'operations');
  const sharing = d.composePath === null ? 1 : await s.deployments.countSharingComposePath(d.serverId, d.composePath);
  return decideCompose({ composePath: d.composePath, autoManageCompose: ops.autoManageCompose, containerName: d.containerName, deploymentsSharingPath: sharing });
}
