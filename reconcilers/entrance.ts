// The one entrance to deploying. API deploys, plan execution, CI webhooks, manifest hand-off and
// drift heal (later image auto-update) all come here; nothing else creates plans. A request:
//   1. is checked without touching a server (names, tags, templates): a refusal writes nothing;
//   2. writes the desired state in one transaction, the services' rows locked (FOR UPDATE) so
//      requests for one service are ordered: the service's desired tag (services.image_tag; a
//      deployment's image_tag stays what runs) and generation + 1 on it and its deployments;
//   3. builds the plan there, and supersedes every older plan still pending or running for the
//      same services (they stop at their next step boundary and end cancelled);
//   4. hands the plan to the engine (persisted steps, lease, rollback), which runs it.
// Converging requests (manifest hand-off, heal) include only deployments whose container differs
// from the desired one: a no-op re-apply creates no plan and touches no container.
import { randomUUID } from 'node:crypto';
import type { Trx } from '../controller/store/transaction.js';
import type { Services } from '../controller/services.js';
import { conflict, notFound, validationError } from '../controller/errors/app-error.js';
import { assertImageTag } from '../controller/deploy/names.js';
import { buildPlan, targetTag, type CreatePlanInput, type PlanBuilding, type RevisionTargets } from './deployment/plans/plan-builder.js';
import { checkPlan } from './deployment/plans/plan-preview.js';
import { assertSpecAllowed } from '../controller/deploy/container-policy.js';
import { assertIngressClaim } from '../controller/ingress/claims.js';
import { draftPlan } from './deployment/plans/preview-without-saving.js';
import { planEvent } from './deployment/plans/plan-events.js';
import type { DeploymentPlanRow, PlanItem } from '../controller/store/repositories/deployment-plans.js';
import type { ServiceRow, ServiceSpec } from '../controller/store/repositories/services.js';
import { diffDeployment, needsRollout } from './service/deployment-diff.js';
import type { LookServices } from './deployment/observe-and-record.js';
import { acceptRevision, prepareRevision, readForRevisions, revisionSpec, type PreparedRevision } from './service/revisions.js';
import { inFallback } from './service/fallback.js';
import { editHint, ownedFields, ownerOf, type ManifestSource } from '../controller/manifests/owned-fields.js';
import type { DesiredReads } from './deployment/load-desired.js';
import { specOfRevision, type RevisionSpec } from './service/revision-spec.js';

export type DeployRequest = CreatePlanInput & {
  trigger: string;
  wait?: boolean;
  /** Spec fields of the one service named (PATCH, revert), written with its desired state. */
  spec?: { serviceId: string; values: ServiceSpec };
  /** A revert: the revision whose spec `spec` restores. */
  revertedFrom?: number;
};

/** Service fields whose change changes the containers: a PATCH of one rolls out (name and type do not). */
const ROLLOUT_FIELDS = [
  'containerImageId', 'imageTag', 'env', 'ports', 'volumes', 'command', 'healthCheck', 'composeTemplate', 'updateOrder', 'drainSec', 'restartPolicy',
] as const;

/** Triggers that only converge to what is already desired: they never supersede a request. */
const CONVERGING_ONLY = new Set(['drift-heal']);

/** What the entrance reads and writes: the desired state, revisions, plans and their events. */
export type EntranceServices = LookServices & PlanBuilding & Pick<Services, 'events' | 'transaction'>;

/** API deploy, plan create + execute, CI webhooks: the request's tags become desired, then the plan runs. */
export async function requestDeploy(s: EntranceServices, req: DeployRequest): Promise<DeploymentPlanRow> {
  const plan = await enter(s, req);
  return finishRequest(s, plan, req.wait);
}

/**
 * Manifest hand-off and drift heal: the desired state is already written; a plan only for the
 * deployments whose container differs from it (or whose server could not be asked). null when
 * every container already matches.
 */
export async function requestConvergence(s: EntranceServices, req: DeployRequest): Promise<DeploymentPlanRow | null> {
  const items: PlanItem[] = [];
  for (const item of req.items) {
    let deployments = await s.deployments.listByService(item.serviceId);
    if (item.deploymentIds) deployments = deployments.filter((d) => item.deploymentIds!.includes(d.id));
    const differing = [];
    for (const d of deployments) if (needsRollout(await diffDeployment(s, d))) differing.push(d.id);
    if (differing.length) items.push({ ...item, deploymentIds: differing });
  }
  if (!items.length) return null;
  return finishRequest(s, await enter(s, { ...req, items }), req.wait);
}

/** POST /api/deployment-plans/{id}/execute: the pending plan's tags become desired, then it runs. */
export async function executePendingPlan(s: EntranceServices, planId: string): Promise<DeploymentPlanRow> {
  const plan = (await s.plans.repo.findById(planId))!;
  if (plan.status !== 'pending') throw conflict(`the plan is ${plan.status}; only a pending plan can be executed`);
  const steps = await s.plans.steps.ofPlan(planId);
  await checkPlan(s, plan, steps);
  const tags = new Map(steps.filter((x) => x.serviceId).map((x) => [x.serviceId!, x.imageTag!]));
  const items = [...tags].map(([serviceId, imageTag]) => ({ serviceId, imageTag }));
  const prepared = await prepareRevisions(s, { environmentId: plan.environmentId, items, trigger: plan.trigger });
  const superseded = await s.transaction(async (trx) => {
    const rows = await writeDesired(s, items, plan.trigger, trx);
    if (!(await s.plans.repo.lockPending(planId, trx))) throw conflict('the plan is no longer pending');
    const targets = await acceptRevisions(s, { items, trigger: plan.trigger, createdBy: plan.createdBy }, rows, trx, prepared, planId);
    for (const [serviceId, t] of targets) await s.plans.steps.setRevision(planId, serviceId, t.revision, trx);
    return s.plans.repo.supersede([...tags.keys()], planId, trx);
  });
  for (const p of superseded) await planEvent(s, p);
  return s.plans.startPlan(planId);
}

/** POST /api/environments/{envId}/deployment-plans without execute: a proposal; nothing desired changes yet. */
export async function proposePlan(s: EntranceServices, input: CreatePlanInput): Promise<DeploymentPlanRow> {
  await checkDraft(s, input);
  const plan = await s.transaction((trx) => buildPlan(s, input, trx));
  await planEvent(s, plan);
  return plan;
}

async function checkDraft(s: EntranceServices, input: CreatePlanInput): Promise<void> {
  const draft = await draftPlan(s, input);
  await checkPlan(s, draft.plan, draft.steps);
}

async function enter(s: EntranceServices, req: DeployRequest): Promise<DeploymentPlanRow> {
  for (const [n, item] of req.items.entries()) if (item.imageTag != null) assertImageTag(item.imageTag, `items/${n}/imageTag`);
  // checks that need no server run first, on a draft nobody sees: a refused request writes nothing
  await checkDraft(s, req);
  const prepared = await prepareRevisions(s, req);
  // the plan's id is chosen first: the revisions it rolls out are written naming it (a heal's are not)
  const planId = randomUUID();
  const { plan, superseded } = await s.transaction(async (trx) => {
    const rows = await writeDesired(s, req.items, req.trigger, trx, req.spec);
    const targets = await acceptRevisions(s, req, rows, trx, prepared, CONVERGING_ONLY.has(req.trigger) ? null : planId);
    const built = await buildPlan(s, req, trx, targets, planId);
    const older = CONVERGING_ONLY.has(req.trigger) ? [] : await s.plans.repo.supersede([...new Set(req.items.map((i) => i.serviceId))], built.id, trx);
    return { plan: built, superseded: older };
  });
  await planEvent(s, plan);
  for (const p of superseded) await planEvent(s, p);
  return s.plans.startPlan(plan.id);
}

/**
 * The desired state of each service named, under its row lock: a new tag bumps the generation
 * of the service and its deployments. A manifest wrote its services already (in the apply's
 * transaction); its hand-off is still a new request for their deployments. Returns the services'
 * rows as written (still locked).
 */
async function writeDesired(s: Pick<Services, 'deployments' | 'services'>, items: Array<Pick<PlanItem, 'serviceId' | 'imageTag'>>, trigger: string, trx: Trx,
  spec?: DeployRequest['spec']): Promise<ServiceRow[]> {
  const rows = await s.services.lockForUpdate([...new Set(items.map((i) => i.serviceId))], trx);
  const changed: string[] = [];
  const at = spec ? rows.findIndex((r) => r.id === spec.serviceId) : -1;
  if (at >= 0) {
    const written = await s.services.updateSpec(rows[at], spec!.values, trx);
    rows[at] = written.row;
    if (written.changed.length) changed.push(written.row.id);
  }
  for (const [n, svc] of rows.entries()) {
    const tag = items.find((i) => i.serviceId === svc.id)?.imageTag ?? null;
    if (tag === null || tag === svc.imageTag) continue;
    if (trigger !== 'manifest') assertTagNotManifestOwned(svc, tag);
    rows[n] = (await s.services.writeDesiredTag(svc.id, tag, trx)) ?? svc;
    changed.push(svc.id);
  }
  await s.deployments.bumpGenerationOfServices(trigger === 'manifest' ? rows.map((r) => r.id) : changed, trx);
  return rows;
}

/**
 * Each service of the request as a revision: the rendered spec it asks for becomes desired (a new
 * number when it differs from the newest), rolled out by the plan `planId`. A heal of a service
 * whose desired revision failed restores its last good revision instead, and records nothing.
 * `rows`: the services as writeDesired wrote them, locked. (Exported for bench/revisions.ts, which
 * times it as a deploy runs it.)
 */
export async function acceptRevisions(s: DesiredReads, req: Pick<DeployRequest, 'items' | 'trigger' | 'createdBy' | 'revertedFrom'>, rows: ServiceRow[],
  trx: Trx, prepared: Map<string, PreparedRevision>, planId: string | null): Promise<RevisionTargets> {
  const targets: RevisionTargets = new Map();
  const converging = CONVERGING_ONLY.has(req.trigger);
  for (const svc of rows) {
    if (converging && inFallback(svc)) {
      const spec: RevisionSpec | undefined = await revisionSpec(s, svc.id, svc.currentRevision);
      if (spec) targets.set(svc.id, { revision: svc.currentRevision!, imageTag: spec.image.tag });
      continue;
    }
    const tag = await targetTag(s, svc, req.items.find((i) => i.serviceId === svc.id)!.imageTag ?? null, trx);
    const accepted = await acceptRevision(s, svc, tag, {
      source: req.trigger, createdBy: req.createdBy ?? null, revertedFrom: req.revertedFrom ?? null, retryFailed: !converging,
      prepared: prepared.get(svc.id), planId,
    }, trx);
    if (accepted) targets.set(svc.id, accepted);
  }
  return targets;
}

/**
 * Each service of the request rendered as it will be once the request is written, before any
 * lock is taken (reconcilers/service/revisions.ts, PreparedRevision), with all it reads read at
 * once (readForRevisions). A service whose tag cannot be told yet is left to be rendered
 * under the lock. (Exported for bench/revisions.ts, which times it as a deploy runs it.)
 */
export async function prepareRevisions(s: DesiredReads, req: Pick<DeployRequest, 'environmentId' | 'items' | 'trigger' | 'spec'>): Promise<Map<string, PreparedRevision>> {
  const out = new Map<string, PreparedRevision>();
  for (const { row, read } of await readForRevisions(s, [...new Set(req.items.map((i) => i.serviceId))], req.environmentId)) {
    if (CONVERGING_ONLY.has(req.trigger) && inFallback(row)) continue;
    const item = req.items.find((i) => i.serviceId === row.id)!;
    const future: ServiceRow = { ...row, ...(req.spec?.serviceId === row.id ? req.spec.values : {}), ...(item.imageTag != null && { imageTag: item.imageTag }) } as ServiceRow;
    const tag = await targetTag(s, future, item.imageTag ?? null).catch(() => null);
    if (tag) out.set(row.id, await prepareRevision(s, future, tag, read));
  }
  return out;
}

/**
 * PATCH of a service: spec fields are written under the row lock with the deployments'
 * generation; a change of what the containers should be, on a service that runs somewhere, is a
 * request like a deploy (a revision and a plan over the deployments that run).
 */
export async function changeServiceSpec(s: EntranceServices, current: ServiceRow, values: ServiceSpec, createdBy: string | null)
  : Promise<{ row: ServiceRow; changed: string[]; plan: DeploymentPlanRow | null }> {
  const differs = (f: keyof ServiceSpec) => values[f] !== undefined && JSON.stringify(values[f]) !== JSON.stringify(current[f as keyof ServiceRow]);
  const deployed = (await s.deployments.listByService(current.id)).filter((d) => d.imageTag).map((d) => d.id);
  if (ROLLOUT_FIELDS.some(differs) && deployed.length) {
    const changed = (Object.keys(values) as Array<keyof ServiceSpec>).filter(differs);
    const plan = await enter(s, {
      environmentId: current.environmentId, items: [{ serviceId: current.id, deploymentIds: deployed }], trigger: 'api', createdBy,
      spec: { serviceId: current.id, values },
    });
    return { row: (await s.services.findById(current.id))!, changed, plan };
  }
  const out = await s.transaction(async (trx) => {
    const [locked] = await s.services.lockForUpdate([current.id], trx);
    const written = await s.services.updateSpec(locked, values, trx);
    if (written.changed.length) await s.deployments.bumpGenerationOfServices([current.id], trx);
    return written;
  });
  return { ...out, plan: null };
}

/**
 * POST /api/services/{id}/revisions/{n}/revert: the revision's template and tag become the
 * service's spec again, through the same entrance as a deploy (a new revision, unless it is the
 * newest already, and a plan over the deployments that run; all of them when none runs).
 */
export async function requestRevert(s: EntranceServices & Pick<Services, 'config'>, service: ServiceRow, revision: number,
  o: { createdBy: string | null; wait?: boolean }): Promise<DeploymentPlanRow> {
  const row = await s.revisions.find(service.id, revision);
  if (!row) throw notFound('Revision');
  const spec = row.spec as unknown as RevisionSpec;
  const values: ServiceSpec = specOfRevision(spec);
  assertNotManifestOwned(service, values);
  // the old revision's volumes and template become the spec again: a write like any other
  await assertSpecAllowed(s, service.environmentId, values, service.name);
  if (values.ingress) await assertIngressClaim(s, { environmentId: service.environmentId, serviceId: service.id, serviceName: service.name, ingress: values.ingress });
  const deployments = await s.deployments.listByService(service.id);
  const deployed = deployments.filter((d) => d.imageTag).map((d) => d.id);
  if (!deployments.length) throw validationError(`service ${service.name} has no deployments to revert`, 'deployments', 'Add a deployment to the service first');
  const plan = await enter(s, {
    environmentId: service.environmentId, name: `revert ${service.name} to revision ${revision}`,
    items: [{ serviceId: service.id, imageTag: spec.image.tag, ...(deployed.length && { deploymentIds: deployed }) }],
    trigger: 'revert', createdBy: o.createdBy, spec: { serviceId: service.id, values }, revertedFrom: revision,
  });
  return finishRequest(s, plan, o.wait);
}

/**
 * The containers of deployments a manifest pruned, or whose server stopped matching their
 * service's serverSelector (trigger 'selector'; their rows are gone): one plan of remove steps,
 * visible and cancellable like any plan, each removing its container only if that deployment owns
 * it. Containers on servers that were pruned too cannot be reached and are left (logged).
 */
export async function requestRemoval(s: Pick<Services, 'events' | 'logger' | 'plans' | 'servers' | 'transaction'>, environmentId: string, removed: Array<{ id: string; serverId: string; containerName: string }>,
  name: string, trigger = 'manifest-prune'): Promise<DeploymentPlanRow | null> {
  const servers = new Set((await s.servers.findByIds(removed.map((d) => d.serverId))).map((x) => x.id));
  const reachable = removed.filter((d) => servers.has(d.serverId));
  for (const d of removed.filter((x) => !servers.has(x.serverId))) s.logger.warn('a pruned container is left: its server was pruned too', { container: d.containerName, server: d.serverId });
  if (!reachable.length) return null;
  const plan = await s.transaction(async (trx) => {
    const p = await s.plans.repo.create({
      environmentId, name, autoRollback: false, strategy: 'rolling', pullImage: false, generateArtifacts: false, trigger,
      items: JSON.stringify([]) as never, createdBy: null,
    }, trx);
    await s.plans.steps.insertForPlan(p.id, reachable.map((d) => ({
      stage: 0, action: 'remove' as const, serverId: d.serverId, containerName: d.containerName, removedDeploymentId: d.id,
    })), trx);
    return p;
  });
  await planEvent(s, plan);
  return s.plans.startPlan(plan.id);
}

/**
 * POST …/deployments/{depId}/heal (the dashboard's Heal): what drift heal does, for one
 * deployment, now: its container back to what is desired, or to the last good revision while the
 * desired one has failed. Refused (409, with the reason) when there is nothing to heal or when a
 * heal would only retry a failed revision.
 */
export async function requestHeal(s: EntranceServices, service: ServiceRow, deployment: { id: string; containerName: string; imageTag: string | null }): Promise<DeploymentPlanRow> {
  if (service.failedRevision != null && service.failedRevision === service.desiredRevision && !inFallback(service)) {
    throw conflict(`r${service.failedRevision} of ${service.name} failed and no earlier revision succeeded: a heal would only retry it`,
      'Deploy another tag or revert to a revision');
  }
  if (!deployment.imageTag) throw conflict(`${deployment.containerName} was never deployed: deploy it instead`);
  const plan = await requestConvergence(s, {
    environmentId: service.environmentId, name: `heal ${deployment.containerName}`, trigger: 'drift-heal',
    items: [{ serviceId: service.id, deploymentIds: [deployment.id] }],
  });
  if (!plan) throw conflict(`${deployment.containerName} already runs what it should; nothing to heal`);
  return plan;
}

/** A revert that would change a field a manifest sets is refused, naming the file. */
function assertNotManifestOwned(svc: ServiceRow, values: ServiceSpec): void {
  const source = svc.source as ManifestSource;
  const changed = (Object.keys(values) as Array<keyof ServiceSpec>).filter((f) => JSON.stringify(values[f]) !== JSON.stringify(svc[f as keyof ServiceRow]));
  const owned = ownedFields(source, changed);
  if (!owned.length) return;
  throw conflict(`${owned.join(', ')} of ${svc.name} ${owned.length > 1 ? 'are' : 'is'} managed by the manifest ${ownerOf(source)}`,
    editHint(source), owned[0]);
}

/** A deploy that would change a tag a manifest sets is refused as PATCH refuses it. */
function assertTagNotManifestOwned(svc: ServiceRow, tag: string): void {
  const source = svc.source as ManifestSource;
  if (!ownedFields(source, ['imageTag']).length) return;
  throw conflict(
    `imageTag of ${svc.name} is managed by the manifest ${ownerOf(source)} (it sets ${svc.imageTag ?? 'no tag'}, the deploy asked for ${tag})`,
    `${editHint(source)}, or remove the field from it to manage it through the API`, 'imageTag',
  );
}

async function finishRequest(s: Pick<Services, 'plans'>, plan: DeploymentPlanRow, wait?: boolean): Promise<DeploymentPlanRow> {
  return wait ? s.plans.waitFor(plan.id) : plan;
}
