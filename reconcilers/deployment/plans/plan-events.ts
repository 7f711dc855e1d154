// What plans tell the rest of the product (SSE, notifications, webhooks). Ids, names, states and
// tags only: never an env value or anything else that could hold a secret.
import type { Services } from '../../../controller/services.js';
import { currentWaveOf, type DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { AnalysisRecord, PlanWave } from '../../../controller/model/plan-waves.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';

export const planEvent = (s: Pick<Services, 'events'>, p: DeploymentPlanRow) =>
  s.events.publish('plan.updated', p.environmentId, {
    planId: p.id, name: p.name, status: p.status, error: p.error, trigger: p.trigger, currentWave: currentWaveOf(p),
  });

/** deployment.wave_started (a notification type): a wave of a rollout begins, with its servers. */
export const waveStartedEvent = (s: Pick<Services, 'events'>, p: DeploymentPlanRow, w: PlanWave, steps: PlanStepRow[]) =>
  s.events.publish('deployment.wave_started', p.environmentId, {
    planId: p.id, planName: p.name, serviceId: w.serviceId, serviceName: w.serviceName, wave: w.index + 1, waves: p.waves?.length ?? 1,
    imageTag: steps[0]?.imageTag ?? null, containers: steps.map((x) => x.containerName), serverIds: steps.map((x) => x.serverId),
    message: `${w.serviceName}: wave ${w.index + 1} of ${p.waves?.length ?? 1} (${steps.length} server${steps.length === 1 ? '' : 's'}) started`,
  });

/** deployment.analysis_failed (a notification type): the check and figure that stopped a rollout. */
export const analysisFailedEvent = (s: Pick<Services, 'events'>, p: DeploymentPlanRow, w: PlanWave, r: AnalysisRecord) =>
  s.events.publish('deployment.analysis_failed', p.environmentId, {
    planId: p.id, planName: p.name, serviceId: w.serviceId, serviceName: w.serviceName, wave: w.index + 1,
    check: r.failure?.check ?? null, target: r.failure?.target ?? null, figure: r.failure?.figure ?? null,
    message: `${w.serviceName}: analysis after wave ${w.index + 1} failed: ${r.failure?.message ?? 'unknown'}`,
  });

export const stepEvent = (s: Pick<Services, 'events'>, p: DeploymentPlanRow, st: PlanStepRow) =>
  s.events.publish('plan.step', p.environmentId, {
    planId: p.id, stepId: st.id, position: st.position, status: st.status, deploymentId: st.deploymentId,
    serverId: st.serverId, containerName: st.containerName, imageTag: st.imageTag, error: st.error,
  });

export const deploymentEvent = (s: Pick<Services, 'events'>, d: DeploymentRow) =>
  s.events.publish('deployment.updated', d.environmentId, {
    deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, status: d.status, imageTag: d.imageTag,
  });

/** Notification type codes for outgoing webhooks: deployment.success / deployment.failed. */
export async function outcomeEvent(s: Pick<Services, 'events'>, p: DeploymentPlanRow, steps: PlanStepRow[]) {
  const type = p.status === 'succeeded' ? 'deployment.success' : p.status === 'cancelled' ? null : 'deployment.failed';
  if (!type) return;
  const tags = [...new Set(steps.map((x) => x.imageTag).filter(Boolean))];
  await s.events.publish(type, p.environmentId, {
    planId: p.id, planName: p.name, status: p.status, imageTag: tags.length === 1 ? tags[0] : tags.join(','),
    serviceCount: new Set(steps.map((x) => x.serviceId)).size,
  });
}
