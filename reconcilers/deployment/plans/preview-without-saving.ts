// A dry run of a plan that was never saved: build it inside a transaction, read what it would
// be, and roll the transaction back. Nothing is written. The entrance checks requests on such a
// draft too, so a refused request leaves no trace.
import type { Services } from '../../../controller/services.js';
import { toPlan, type DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import { buildPlan, type CreatePlanInput, type PlanBuilding } from './plan-builder.js';
import { previewPlan } from './plan-preview.js';
import type { LookServices } from '../observe-and-record.js';

class Discard extends Error {}

export async function draftPlan(s: PlanBuilding & Pick<Services, 'transaction'>, input: CreatePlanInput): Promise<{ plan: DeploymentPlanRow; steps: PlanStepRow[] }> {
  let plan!: DeploymentPlanRow;
  let steps!: PlanStepRow[];
  await s.transaction(async (trx) => {
    plan = await buildPlan(s, input, trx);
    steps = await s.plans.steps.ofPlan(plan.id, trx);
    throw new Discard();
  }).catch((e) => { if (!(e instanceof Discard)) throw e; });
  return { plan, steps };
}

export async function previewPlanWithoutSaving(s: LookServices & PlanBuilding & Pick<Services, 'transaction'>, input: CreatePlanInput) {
  const { plan, steps } = await draftPlan(s, input);
  const { id: _id, ...rest } = toPlan(plan);
  return { plan: { ...rest, id: null, status: 'pending' }, steps: await previewPlan(s, plan, steps) };
}
