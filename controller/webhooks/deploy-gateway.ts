import { AppError } from '../errors/app-error.js';
import type { Services } from '../services.js';

export interface WebhookDeployResult { success: boolean; deploymentId: string; status: string }
export interface WebhookPlanResult { planId: string; status: string }

const engineMissing = () => new AppError('SERVICE_UNAVAILABLE', 'The deploy engine is not available in this build',
  { hint: 'Deployment plans are not wired to incoming webhooks yet' });

/**
 * The one place incoming webhooks start deploys; everything before it (signature, lookups,
 * preconditions, replay protection) is in api/routes/webhooks-incoming.ts.
 * deployServiceForWebhook: POST /api/webhooks/deploy (one service, its current or given tag).
 */
export async function deployServiceForWebhook(s: Services, opts: {
  environmentId: string; serviceId: string; imageTag?: string; generateArtifacts: boolean;
}): Promise<WebhookDeployResult> {
  void s; void opts;
  throw engineMissing();
}

/**
 * createAutoRollbackPlanForWebhook: deploy-image and codehost: one plan over the services (ordered
 * by the dependency graph), executed with automatic rollback, all moved to `imageTag`.
 */
export async function createAutoRollbackPlanForWebhook(s: Services, opts: {
  environmentId: string; serviceIds: string[]; imageTag: string; name: string;
}): Promise<WebhookPlanResult> {
  void s; void opts;
  throw engineMissing();
}
