// What plans tell the rest of the product (SSE, notifications, webhooks). Ids, names, states and
// tags only: never an env value or anything else that could hold a secret.
import type { Services } from '../../../controller/services.js';
import type { DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';

export const planEvent = (s: Pick<Services, 'events'>, p: DeploymentPlanRow) =>
  s.events.publish('plan.updated', p.environmentId, { planId: p.id, name: p.name, status: p.status, error: p.error, trigger: p.trigger });

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
