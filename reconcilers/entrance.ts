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
import type { Trx } from '../controller/store/transaction.js';
import type { Services } from '../controller/services.js';
import { conflict } from '../controller/errors/app-error.js';
import { assertImageTag } from '../controller/deploy/names.js';
import { buildPlan, type CreatePlanInput } from '../controller/deploy/plans/plan-builder.js';
import { checkPlan } from '../controller/deploy/plans/plan-preview.js';
import { draftPlan } from '../controller/deploy/plans/preview-without-saving.js';
import { planEvent } from '../controller/deploy/plans/plan-events.js';
import type { DeploymentPlanRow, PlanItem } from '../controller/store/repositories/deployment-plans.js';
import type { ServiceRow } from '../controller/store/repositories/services.js';
import { diffDeployment, needsRollout } from './service/deployment-diff.js';

export type DeployRequest = CreatePlanInput & { trigger: string; wait?: boolean };

/** Triggers that only converge to what is already desired: they never supersede a request. */
const CONVERGING_ONLY = new Set(['drift-heal']);

/** API deploy, plan create + execute, CI webhooks: the request's tags become desired, then the plan runs. */
export async function requestDeploy(s: Services, req: DeployRequest): Promise<DeploymentPlanRow> {
  const plan = await enter(s, req);
  return finishRequest(s, plan, req.wait);
}

/**
 * Manifest hand-off and drift heal: the desired state is already written; a plan only for the
 * deployments whose container differs from it (or whose server could not be asked). null when
 * every container already matches.
 */
export async function requestConvergence(s: Services, req: DeployRequest): Promise<DeploymentPlanRow | null> {
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
export async function executePendingPlan(s: Services, planId: string): Promise<DeploymentPlanRow> {
  const plan = (await s.plans.repo.findById(planId))!;
  if (plan.status !== 'pending') throw conflict(`the plan is ${plan.status}; only a pending plan can be executed`);
  const steps = await s.plans.steps.ofPlan(planId);
  await checkPlan(s, plan, steps);
  const superseded = await s.transaction(async (trx) => {
    const tags = new Map(steps.filter((x) => x.serviceId).map((x) => [x.serviceId!, x.imageTag!]));
    await writeDesired(s, [...tags].map(([serviceId, imageTag]) => ({ serviceId, imageTag })), plan.trigger, trx);
    if (!(await s.plans.repo.lockPending(planId, trx))) throw conflict('the plan is no longer pending');
    return s.plans.repo.supersede([...tags.keys()], planId, trx);
  });
  for (const p of superseded) await planEvent(s, p);
  return s.plans.startPlan(planId);
}

/** POST /api/environments/{envId}/deployment-plans without execute: a proposal; nothing desired changes yet. */
export async function proposePlan(s: Services, input: CreatePlanInput): Promise<DeploymentPlanRow> {
  await checkDraft(s, input);
  const plan = await s.transaction((trx) => buildPlan(s, input, trx));
  await planEvent(s, plan);
  return plan;
}

async function checkDraft(s: Services, input: CreatePlanInput): Promise<void> {
  const draft = await draftPlan(s, input);
  await checkPlan(s, draft.plan, draft.steps);
}

async function enter(s: Services, req: DeployRequest): Promise<DeploymentPlanRow> {
  for (const [n, item] of req.items.entries()) if (item.imageTag != null) assertImageTag(item.imageTag, `items/${n}/imageTag`);
  // checks that need no server run first, on a draft nobody sees: a refused request writes nothing
  await checkDraft(s, req);
  const { plan, superseded } = await s.transaction(async (trx) => {
    await writeDesired(s, req.items, req.trigger, trx);
    const built = await buildPlan(s, req, trx);
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
 * transaction); its hand-off is still a new request for their deployments.
 */
async function writeDesired(s: Services, items: Array<Pick<PlanItem, 'serviceId' | 'imageTag'>>, trigger: string, trx: Trx): Promise<void> {
  const rows = await s.services.lockForUpdate([...new Set(items.map((i) => i.serviceId))], trx);
  const changed: string[] = [];
  for (const svc of rows) {
    const tag = items.find((i) => i.serviceId === svc.id)?.imageTag ?? null;
    if (tag === null || tag === svc.imageTag) continue;
    if (trigger !== 'manifest') assertTagNotManifestOwned(svc, tag);
    await s.services.writeDesiredTag(svc.id, tag, trx);
    changed.push(svc.id);
  }
  await s.deployments.bumpGenerationOfServices(trigger === 'manifest' ? rows.map((r) => r.id) : changed, trx);
}

/** A deploy that would change a tag a manifest sets is refused as PATCH refuses it. */
function assertTagNotManifestOwned(svc: ServiceRow, tag: string): void {
  const source = svc.source as { kind?: string; path?: string; fields?: string[] };
  if (source?.kind !== 'manifest' || !source.path || !(source.fields ?? []).includes('imageTag')) return;
  throw conflict(
    `imageTag of ${svc.name} is managed by the manifest ${source.path} (it sets ${svc.imageTag ?? 'no tag'}, the deploy asked for ${tag})`,
    `Edit ${source.path} in the manifests folder instead, or remove the field from it to manage it through the API`, 'imageTag',
  );
}

async function finishRequest(s: Services, plan: DeploymentPlanRow, wait?: boolean): Promise<DeploymentPlanRow> {
  return wait ? s.plans.waitFor(plan.id) : plan;
}
