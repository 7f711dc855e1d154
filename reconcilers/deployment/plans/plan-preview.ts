// The dry run of a plan is that same plan, not executed: every check that needs no server
// (checkPlan: names, tags, paths, the compose document, which execution also runs first), then
// for each step what the pure plan() of its deployment says would change on its server and why.
import type { Services } from '../../../controller/services.js';
import { validationError } from '../../../controller/errors/app-error.js';
import type { DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../../controller/store/repositories/services.js';
import { composeFilesOf } from '../../../controller/deploy/compose/generate-compose.js';
import { loadDesired, type DesiredReads } from '../load-desired.js';
import { validateRequest } from '../effects/deploy-deployment.js';
import { validateComposeOnDisk } from '../effects/compose-external.js';
import { decisionFor } from '../../../controller/deploy/deploy-mode.js';
import { HostError } from '../../../controller/hosts/errors.js';
import type { ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import { diffDeployment } from '../../service/deployment-diff.js';
import type { LookServices } from '../observe-and-record.js';
import type { Difference, PlanAction } from '../plan.js';

export interface StepPreview {
  stepId: string;
  position: number;
  deploymentId: string | null;
  serverId: string | null;
  server: string | null;
  service: string;
  containerName: string;
  currentImageTag: string | null;
  imageTag: string | null;
  mode: string;
  composePath: string | null;
  /** plan()'s action for the step's desired state (none: it already runs it, and nothing is
   *  restarted); unknown: the server could not be asked. */
  change: PlanAction | 'unknown';
  /** plan()'s differences: why the container differs. */
  reasons: Array<Pick<Difference, 'field' | 'reason' | 'message'>>;
  error?: string;
  actions: string[];
}

interface Checked { step: PlanStepRow; deployment: DeploymentRow; service: ServiceRow; ref: string; decision: ComposeDecision }

/** The checks that need no server; throws VALIDATION_ERROR before anything reaches one. */
export async function checkPlan(s: DesiredReads & Pick<Services, 'hosts'>, plan: DeploymentPlanRow, steps: PlanStepRow[]): Promise<Checked[]> {
  const out: Checked[] = [];
  for (const st of steps) {
    const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
    if (!d) throw validationError(`step ${st.position} names a deployment that no longer exists`, 'items');
    const service = (await s.services.findById(d.serviceId))!;
    const image = service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
    if (!image) throw validationError(`service ${service.name} has no container image`, 'items');
    validateRequest({ deployment: d, imageName: image.imageName, imageTag: st.imageTag! });
    const decision = await decisionFor(s, d);
    const ref = `${image.imageName}:${st.imageTag}`;
    // generating validates the template without writing anything
    if (decision.mode === 'compose-generated') {
      const loaded = await loadDesired(s, d, { imageTag: st.imageTag! });
      if (loaded) composeFilesOf(loaded.desired, decision.path, service.composeTemplate);
    }
    // a file on disk that does not define the container is refused before rollout; an
    // unreachable server is the step's problem
    if (decision.mode === 'compose-external') await validateComposeOnDisk(s, d, decision.path).catch((e) => { if (!(e instanceof HostError)) throw e; });
    out.push({ step: st, deployment: d, service, ref, decision });
  }
  return out;
}

export async function previewPlan(s: LookServices, plan: DeploymentPlanRow, steps: PlanStepRow[]): Promise<StepPreview[]> {
  const checked = await checkPlan(s, plan, steps);
  return Promise.all(checked.map(async ({ step: st, deployment: d, service, ref, decision }) => {
    const [diff, server] = await Promise.all([diffDeployment(s, d, st.imageTag), s.servers.findById(d.serverId)]);
    const change = diff.error !== undefined ? 'unknown' as const : diff.action;
    const actions = plan.pullImage ? [`pull ${ref}`] : [];
    if (decision.mode === 'direct') actions.push(`${change === 'none' ? 'leave' : change} container ${d.containerName} through the Docker API from the desired spec with ${ref}`);
    else if (decision.mode === 'compose-generated') actions.push(`write ${decision.path} and its env file (0600), then compose up ${d.containerName}`);
    else actions.push(`validate ${decision.path} on the server${decision.shared ? ' (shared: never rewritten)' : ''}, then compose up ${d.containerName} with STEVEDORE_IMAGE_TAG=${st.imageTag}`);
    actions.push(change === 'none' ? `(${d.containerName} already runs ${ref} as desired)`
      : change === 'unknown' ? `(could not ask ${server?.name ?? 'the server'}: ${diff.error})`
        : `because ${diff.differences.map((a) => a.message).join('; ')}`);
    actions.push(`wait until ${d.containerName} is healthy; roll back on failure${plan.autoRollback ? '' : ' (auto-rollback off: stop)'}`);
    return {
      stepId: st.id, position: st.position, deploymentId: d.id, serverId: d.serverId, server: server?.name ?? null, service: service.name,
      containerName: d.containerName, currentImageTag: d.imageTag, imageTag: st.imageTag, mode: decision.mode,
      composePath: decision.mode === 'direct' ? null : decision.path, change,
      reasons: diff.differences.map((a) => ({ field: a.field, reason: a.reason, message: a.message })), ...(diff.error !== undefined && { error: diff.error }), actions,
    };
  }));
}
