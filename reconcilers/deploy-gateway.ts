import type { Services } from '../controller/services.js';
import { requestDeploy, type EntranceServices } from './entrance.js';

export interface WebhookDeployResult { success: boolean; deploymentId: string; status: string; error: string | null }
export interface WebhookPlanResult { planId: string; status: string }

/**
 * The one place incoming webhooks start deploys (through the entrance, reconcilers/entrance.ts); everything
 * before it (signature, lookups, preconditions, replay protection) is in
 * api/routes/webhooks-incoming.ts.
 *
 * POST /api/webhooks/deploy: one service to its current or given tag, as a plan with automatic
 * rollback; answers when the plan has finished so the pipeline learns the outcome.
 * deploymentId is the plan's id (GET /api/deployment-plans/{id} has the steps).
 */
export async function deployServiceForWebhook(s: EntranceServices, opts: {
  environmentId: string; serviceId: string; serviceName: string; imageTag?: string; generateArtifacts: boolean;
}): Promise<WebhookDeployResult> {
  const plan = await requestDeploy(s, {
    environmentId: opts.environmentId, items: [{ serviceId: opts.serviceId, imageTag: opts.imageTag }], name: `webhook deploy: ${opts.serviceName}${opts.imageTag ? `:${opts.imageTag}` : ''}`, autoRollback: true,
    generateArtifacts: opts.generateArtifacts, trigger: 'webhook', createdBy: 'webhook', wait: true,
  });
  return { success: plan.status === 'succeeded', deploymentId: plan.id, status: plan.status, error: plan.error };
}

/**
 * deploy-image and codehost: one plan over the services (ordered by the dependency graph),
 * executed with automatic rollback, all moved to `imageTag`. Resolves once the plan has started.
 */
export async function createAutoRollbackPlanForWebhook(s: EntranceServices, opts: {
  environmentId: string; serviceIds: string[]; imageTag: string; name: string;
}): Promise<WebhookPlanResult> {
  const plan = await requestDeploy(s, {
    environmentId: opts.environmentId, items: opts.serviceIds.map((serviceId) => ({ serviceId, imageTag: opts.imageTag })), name: opts.name, autoRollback: true, trigger: 'webhook', createdBy: 'webhook',
  });
  return { planId: plan.id, status: plan.status };
}
