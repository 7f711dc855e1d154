// Only reconcilers/entrance.ts (and the dry run) build plans.
// Turns {items: [{serviceId, imageTag?}]} into ordered steps: services expanded to their
// deployments, stages in dependency order (a cycle is a VALIDATION_ERROR naming it).
import type { Trx } from '../../../controller/store/transaction.js';
import type { Services } from '../../../controller/services.js';
import { notFound, validationError } from '../../../controller/errors/app-error.js';
import { dependencyOrder } from '../../../controller/catalog/dependency-order.js';
import type { DeploymentPlanRow, PlanItem } from '../../../controller/store/repositories/deployment-plans.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { assertImageTag } from '../../../controller/deploy/names.js';
import { splitWaves } from '../../../controller/model/rollout.js';
import type { PlanWave } from '../../../controller/model/plan-waves.js';

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

/**
 * What a service's steps roll out, when the entrance accepted it as a revision: its number and
 * tag; `deployments`, the service's in server order when accepting read them (under the same lock).
 */
export type RevisionTargets = Map<string, { revision: number; imageTag: string; deployments?: DeploymentRow[] }>;

/** What building a plan reads and writes. */
export type PlanBuilding = Pick<Services, 'containerImages' | 'deployments' | 'plans' | 'serviceDependencies' | 'services'>;

/** `id`: the plan's id when the caller chose it already (the revisions it rolls out name it). */
export async function buildPlan(s: PlanBuilding, input: CreatePlanInput, trx: Trx, targets?: RevisionTargets, id?: string): Promise<DeploymentPlanRow> {
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
  const waves: PlanWave[] = [];
  for (const [stage, svc] of ordered.entries()) {
    const item = input.items.find((i) => i.serviceId === svc.id)!;
    const target = targets?.get(svc.id);
    const tag = target?.imageTag ?? await targetTag(s, svc, item.imageTag ?? null, trx);
    let deployments = target?.deployments ?? await s.deployments.listByServiceInServerOrder(svc.id, trx);
    if (item.deploymentIds) deployments = deployments.filter((d) => item.deploymentIds!.includes(d.id));
    // a service with a rollout: its steps in waves (canary first, in server order), each a group the engine runs, checks and pauses after
    // a heal restores what is already desired (or last good): it is not a new version to canary
    const shapes = input.trigger === 'drift-heal' ? null : splitWaves(svc.rollout, deployments.length);
    const waveOf: number[] = [];
    for (const shape of shapes ?? []) {
      const index = waves.length;
      waves.push({
        index, stage, serviceId: svc.id, serviceName: svc.name, size: shape.size, width: shape.width,
        analysis: shape.analysis ? svc.rollout!.analysis ?? null : null, pauseSec: shape.pauseSec ?? null, pause: !!shape.pause,
      });
      for (let n = 0; n < shape.size; n++) waveOf.push(index);
    }
    for (const [n, d] of deployments.entries()) {
      rows.push({
        stage, serviceId: svc.id, deploymentId: d.id, serverId: d.serverId, containerName: d.containerName, imageTag: tag, revision: target?.revision ?? null,
        wave: shapes ? waveOf[n] : null,
      });
    }
  }
  if (!rows.length) throw validationError('the services named have no deployments to deploy', 'items', 'Add a deployment to the service first');
  const name = input.name ?? `deploy ${ordered.map((x) => x.name).join(', ')}`;
  const plan = await s.plans.repo.create({
    ...(id && { id }), environmentId: input.environmentId, name, autoRollback: input.autoRollback ?? true, strategy: input.strategy ?? 'rolling',
    pullImage: input.pullImage ?? true, generateArtifacts: input.generateArtifacts ?? true, trigger: input.trigger ?? 'api',
    items: JSON.stringify(input.items) as never, createdBy: input.createdBy ?? null, waves: (waves.length ? JSON.stringify(waves) : null) as never,
    // stamped when the request was accepted (the entrance holds the services' locks): plans list
    // in the order they were accepted, not the order their transactions began
  }, trx);
  await s.plans.steps.insertForPlan(plan.id, rows, trx);
  return plan;
}

/** The tag to deploy: the one asked for, else the service's recorded tag, else the image's current tag. */
export async function targetTag(s: Pick<Services, 'containerImages'>, svc: { id: string; name: string; imageTag: string | null; containerImageId: string | null },
  asked: string | null, trx?: Trx) {
  if (!svc.containerImageId) throw validationError(`service ${svc.name} has no container image`, 'items', 'Link a container image to the service');
  const tag = asked ?? svc.imageTag ?? (await s.containerImages.findById(svc.containerImageId, trx))?.currentTag ?? null;
  if (!tag) throw validationError(`no image tag to deploy for service ${svc.name}`, 'imageTag', 'Pass imageTag');
  return assertImageTag(tag);
}

export async function planOr404(s: Pick<Services, 'plans'>, id: string): Promise<DeploymentPlanRow> {
  const p = await s.plans.repo.findById(id);
  if (!p) throw notFound('Deployment plan');
  return p;
}
