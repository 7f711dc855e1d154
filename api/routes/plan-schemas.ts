// What plan routes answer: a plan with its steps, and the dry run's preview of one. Written from
// toPlan/toStep (controller/store/repositories) and StepPreview (reconcilers/deployment/plans).
import { PLAN_STATUSES, STEP_STATUSES } from '../../controller/model/plan-states.js';
import { arrayOf, bool, enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid, type Schema } from '../http/schema.js';

const planItem = object({ serviceId: uuid, imageTag: nullable(str()), deploymentIds: arrayOf(uuid) }, ['serviceId']);

const stepFields = {
  id: uuid, planId: uuid, position: int(0), stage: int(0), action: enumOf('deploy', 'restart', 'remove'),
  serviceId: nullable(uuid), deploymentId: nullable(uuid), serverId: nullable(uuid), containerName: str(),
  status: enumOf(...STEP_STATUSES), imageTag: nullable(str()), previousImageTag: nullable(str()),
  revision: nullable(int(1)), previousRevision: nullable(int(1)), mode: nullable(str()),
  log: str(), error: nullable(str()), rollbackError: nullable(str()), startedAt: nullableTimestamp, finishedAt: nullableTimestamp,
  durationMs: nullable(int(0)),
};
export const stepRead: Schema = object(stepFields, ['id', 'planId', 'position', 'status', 'containerName']);

/** A record of a service's deployment history (toHistoryRecord): a deploy step that ran, with its plan. */
export const historyRecordRead: Schema = object({
  ...stepFields, planName: str(), planStatus: enumOf(...PLAN_STATUSES), trigger: str(),
}, [...Object.keys(stepFields), 'planName', 'planStatus', 'trigger']);

const planFields = {
  environmentId: uuid, name: str(), strategy: enumOf('rolling', 'parallel'),
  autoRollback: bool, pullImage: bool, generateArtifacts: bool, trigger: str(), items: arrayOf(planItem),
  cancelRequested: bool, supersededBy: nullable(uuid), error: nullable(str()), createdBy: nullable(str()),
  startedAt: nullableTimestamp, finishedAt: nullableTimestamp, createdAt: timestamp, updatedAt: timestamp,
};

/** A saved plan; `steps` when the route reads them too. */
export const planRead: Schema = object({
  id: uuid, status: enumOf(...PLAN_STATUSES), ...planFields, steps: arrayOf(stepRead),
}, ['id', 'status', 'environmentId', 'items']);

const stepPreview = object({
  stepId: uuid, position: int(0), deploymentId: nullable(uuid), serverId: nullable(uuid), server: nullable(str()), service: str(),
  containerName: str(), currentImageTag: nullable(str()), imageTag: nullable(str()), mode: str(), composePath: nullable(str()),
  change: enumOf('none', 'create', 'start', 'recreate', 'conflict', 'unknown'),
  reasons: arrayOf(object({ field: str(), reason: str(), message: str() }, ['field', 'reason', 'message'])),
  error: str(), actions: arrayOf(str()),
}, ['stepId', 'position', 'service', 'containerName', 'change', 'reasons', 'actions']);

/** A dry run: the plan it would be (never saved: no id) and what each step would change. Nothing was written. */
export const planPreview: Schema = object({
  dryRun: { type: 'boolean', enum: [true] },
  plan: object({ id: nullable(uuid), status: enumOf(...PLAN_STATUSES), ...planFields }, ['status', 'environmentId', 'items']),
  steps: arrayOf(stepPreview),
}, ['dryRun', 'plan', 'steps']);

export const DRY_RUN_ANSWER = { description: 'Dry run: what the plan would do; nothing was saved or changed', response: planPreview };
export const WAITED_ANSWER = { description: '?wait=true: the plan has finished; its final state', response: planRead };
