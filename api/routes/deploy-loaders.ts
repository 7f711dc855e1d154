import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { DeploymentPlanRow } from '../../controller/store/repositories/deployment-plans.js';
import type { Ctx } from '../http/types.js';

export const serviceOf = (s: Services) => async (_ctx: Ctx, p: Record<string, string>): Promise<ServiceRow> => {
  const row = await s.services.findById(p.id);
  if (!row) throw notFound('Service');
  return row;
};

/** The service and one of its deployments (a deployment of another service is a 404). */
export const serviceDeploymentOf = (s: Services) => async (ctx: Ctx, p: Record<string, string>) => {
  const service = await serviceOf(s)(ctx, p);
  const deployment = await s.deployments.findById(p.depId);
  if (!deployment || deployment.serviceId !== service.id) throw notFound('Deployment');
  return { service, deployment } as { service: ServiceRow; deployment: DeploymentRow };
};

export const planOf = (s: Services) => async (_ctx: Ctx, p: Record<string, string>): Promise<DeploymentPlanRow> => {
  const row = await s.plans.repo.findById(p.id);
  if (!row) throw notFound('Deployment plan');
  return row;
};
