// The dry run of a plan: for each step, what it would do and with which compose rule, after every
// check that needs no server (names, tags, paths, the compose document). Changes nothing. Execute
// runs the same checks first, so bad input is refused before anything reaches a server.
import type { Services } from '../../services.js';
import { validationError } from '../../errors/app-error.js';
import type { DeploymentPlanRow } from '../../store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../store/repositories/plan-steps.js';
import { composeFilesOf } from '../compose/generate-compose.js';
import { loadDesired } from '../../../reconcilers/deployment/load-desired.js';
import { decisionFor, validateComposeOnDisk, validateRequest } from '../deploy-deployment.js';
import { HostError } from '../../hosts/errors.js';
import { messageOf } from '../message-of.js';

export interface StepPreview {
  stepId: string;
  position: number;
  deploymentId: string | null;
  serverId: string | null;
  containerName: string;
  currentImageTag: string | null;
  imageTag: string | null;
  mode: string;
  composePath: string | null;
  actions: string[];
}

export async function previewPlan(s: Services, plan: DeploymentPlanRow, steps: PlanStepRow[]): Promise<StepPreview[]> {
  const out: StepPreview[] = [];
  for (const st of steps) {
    const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
    if (!d) throw validationError(`step ${st.position} names a deployment that no longer exists`, 'items');
    const service = (await s.services.findById(d.serviceId))!;
    const image = service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
    if (!image) throw validationError(`service ${service.name} has no container image`, 'items');
    validateRequest({ deployment: d, imageName: image.imageName, imageTag: st.imageTag! });
    const decision = await decisionFor(s, d);
    const ref = `${image.imageName}:${st.imageTag}`;
    const actions = plan.pullImage ? [`pull ${ref}`] : [];
    if (decision.mode === 'direct') {
      actions.push(`recreate container ${d.containerName} through the Docker API from the desired spec with ${ref} (left alone when it already runs that spec)`);
    } else if (decision.mode === 'compose-generated') {
      // generating validates the template (rule 5) without writing anything
      const loaded = await loadDesired(s, d, { imageTag: st.imageTag! });
      if (loaded) composeFilesOf(loaded.desired, decision.path, service.composeTemplate);
      actions.push(`write ${decision.path} and its environment file (0600)`);
      if (decision.recordPath) actions.push(`record composePath ${decision.path} (autoManageCompose)`);
      actions.push(`compose up ${d.containerName}`);
    } else {
      // rule 5 for files on disk: refused before rollout; an unreachable server is the step's problem
      try {
        await validateComposeOnDisk(s, d, decision.path);
      } catch (e) {
        if (!(e instanceof HostError)) throw e;
        actions.push(`(could not read ${decision.path} yet: ${messageOf(e)})`);
      }
      actions.push(`validate ${decision.path} on the server${decision.shared ? ' (shared: never rewritten)' : ''}`, `compose up ${d.containerName} with STEVEDORE_IMAGE_TAG=${st.imageTag}`);
    }
    actions.push(`wait until ${d.containerName} is healthy; roll back on failure${plan.autoRollback ? '' : ' (auto-rollback off: stop)'}`);
    out.push({
      stepId: st.id, position: st.position, deploymentId: d.id, serverId: d.serverId, containerName: d.containerName,
      currentImageTag: d.imageTag, imageTag: st.imageTag, mode: decision.mode, composePath: decision.mode === 'direct' ? null : decision.path, actions,
    });
  }
  return out;
}
