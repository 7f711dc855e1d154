// Only reconcilers/entrance.ts (and the dry run) build plans.
// Turns {items: [{serviceId, imageTag?}]} into ordered steps: services expanded to their
// deployments, stages in dependency order (a cycle is a VALIDATION_ERROR naming it).
import type { Knex } from 'knex';
import type { Services } from '../../services.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { dependencyOrder } from '../../catalog/dependency-order.js';
import type { DeploymentPlanRow, PlanItem } from '../../store/repositories/deployment-plans.js';
import { assertImageTag } from '../names.js';

export interface CreatePlanInput {
  environmentId: string;
  name?: string;
  items: PlanItem[];
  autoRollback?: boolean;
  strategy?: 'rolling' | 'parallel';
  pullImage?: boolean;
  generateArtifacts?: boolean;
  trigger?: string;
  createdBy?: string | null;
}

export async function buildPlan(s: Services, input: CreatePlanInput, trx: Knex.Transaction): Promise<DeploymentPlanRow> {
  if (!input.items.length) throw validationError('items must name at least one service', 'items');
  const ids = [...new Set(input.items.map((i) => i.serviceId))];
  const services = await s.services.listByIds(ids, trx);
  for (const [n, item] of input.items.entries()) {
    const svc = services.find((x) => x.id === item.serviceId);
    if (!svc || svc.environmentId !== input.environmentId) throw validationError(`service ${item.serviceId} is not in this environment`, `items/${n}/serviceId`);
    if (item.imageTag != null) assertImageTag(item.imageTag, `items/${n}/imageTag`);
  }
  const edges = await s.serviceDependencies.listByEnvironment(input.environmentId, trx);
  const ordered = dependencyOrder(services, edges);
  const rows: Array<Record<string, unknown>> = [];
  for (const [stage, svc] of ordered.entries()) {
    const item = input.items.find((i) => i.serviceId === svc.id)!;
    const tag = await targetTag(s, svc, item.imageTag ?? null, trx);
    let deployments = await trx('deployments as d').join('servers as v', 'v.id', 'd.server_id').where('d.service_id', svc.id)
      .orderBy([{ column: 'v.name' }, { column: 'd.container_name' }]).select('d.*');
    if (item.deploymentIds) deployments = deployments.filter((d: { id: string }) => item.deploymentIds!.includes(d.id));
    for (const d of deployments) {
      rows.push({ stage, serviceId: svc.id, deploymentId: d.id, serverId: d.serverId, containerName: d.containerName, imageTag: tag });
    }
  }
  if (!rows.length) throw validationError('the services named have no deployments to deploy', 'items', 'Add a deployment to the service first');
  const name = input.name ?? `deploy ${ordered.map((x) => x.name).join(', ')}`;
  const [plan] = await trx('deployment_plans').insert({
    environmentId: input.environmentId, name, autoRollback: input.autoRollback ?? true, strategy: input.strategy ?? 'rolling',
    pullImage: input.pullImage ?? true, generateArtifacts: input.generateArtifacts ?? true, trigger: input.trigger ?? 'api',
    items: JSON.stringify(input.items), createdBy: input.createdBy ?? null,
    // the moment the request was accepted (the entrance holds the services' locks): plans list in
    // the order they were accepted, not the order their transactions began
    createdAt: trx.raw('clock_timestamp()'),
  }).returning('*');
  await trx('plan_steps').insert(rows.map((r, position) => ({ ...r, planId: plan.id, position })));
  return plan as DeploymentPlanRow;
}

/** The tag to deploy: the one asked for, else the service's recorded tag, else the image's current tag. */
async function targetTag(s: Services, svc: { id: string; name: string; imageTag: string | null; containerImageId: string | null }, asked: string | null, trx: Knex.Transaction) {
  if (!svc.containerImageId) throw validationError(`service ${svc.name} has no container image`, 'items', 'Link a container image to the service');
  const tag = asked ?? svc.imageTag ?? (await s.containerImages.findById(svc.containerImageId, trx))?.currentTag ?? null;
  if (!tag) throw validationError(`no image tag to deploy for service ${svc.name}`, 'imageTag', 'Pass imageTag');
  return assertImageTag(tag);
}

export async function planOr404(s: Services, id: string): Promise<DeploymentPlanRow> {
  const p = await s.plans.repo.findById(id);
  if (!p) throw notFound('Deployment plan');
  return p;
}
