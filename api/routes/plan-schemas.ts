// What plan routes answer: a plan with its steps, and the dry run's preview of one. Written from
// toPlan/toStep (controller/store/repositories) and StepPreview (reconcilers/deployment/plans).
import { PLAN_STATUSES, STEP_STATUSES } from '../../controller/model/plan-states.js';
import { arrayOf, bool, enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid, type Schema } from '../http/schema.js';
import { analysisSchema } from '../../controller/model/rollout.js';

const planItem = object({ serviceId: uuid, imageTag: nullable(str()), deploymentIds: arrayOf(uuid) }, ['serviceId']);

const stepFields = {
  id: uuid, planId: uuid, position: int(0), stage: int(0), wave: nullable(int(0)), action: enumOf('deploy', 'restart', 'remove'),
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

const wavePhase = enumOf('deploying', 'analysing', 'paused');
const currentWave = nullable(object({
  index: int(0), of: int(1), phase: wavePhase, since: timestamp, pauseUntil: nullableTimestamp, pausedBy: nullable(enumOf('rollout', 'operator')),
}, ['index', 'of', 'phase', 'since', 'pauseUntil', 'pausedBy'], {
  description: 'The wave a running plan is in (0-based) and what it does: deploying, analysing, or paused (pauseUntil: a pauseSec deadline; null: until promoted or resumed)',
}));
const analysisRecord = object({
  wave: int(0), startedAt: timestamp, finishedAt: nullableTimestamp, verdict: enumOf('running', 'passed', 'failed'),
  checks: arrayOf(str()), targets: arrayOf(str()),
  failure: nullable(object({ check: str(), target: str(), figure: { description: 'The observed figure: seconds, a count, a status code, a percentage (null: none)' }, message: str() }, ['check', 'target', 'message'])),
}, ['wave', 'startedAt', 'verdict', 'checks', 'targets', 'failure']);
const waveRead = object({
  index: int(0), serviceId: uuid, service: str(), size: int(1), width: int(1), pauseSec: nullable(int(1)), pause: bool,
  analysis: nullable({ ...analysisSchema, additionalProperties: true }),
  status: enumOf('pending', 'deploying', 'analysing', 'paused', 'succeeded', 'failed', 'skipped', 'rolled_back', 'cancelled'),
  deployments: arrayOf(object({ deploymentId: nullable(uuid), serverId: nullable(uuid), containerName: str() })),
  result: nullable(analysisRecord),
}, ['index', 'serviceId', 'service', 'size', 'status', 'deployments', 'result']);

const planFields = {
  environmentId: uuid, name: str(), strategy: enumOf('rolling', 'parallel'),
  autoRollback: bool, pullImage: bool, generateArtifacts: bool, trigger: str(), items: arrayOf(planItem),
  cancelRequested: bool, supersededBy: nullable(uuid), error: nullable(str()), createdBy: nullable(str()),
  startedAt: nullableTimestamp, finishedAt: nullableTimestamp, createdAt: timestamp, updatedAt: timestamp,
  currentWave, pauseRequested: { ...bool, description: 'An operator paused it (POST …/pause): it stops at its next wave boundary until resumed or promoted' },
};

/** A saved plan; `steps` when the route reads them too. */
export const planRead: Schema = object({
  id: uuid, status: enumOf(...PLAN_STATUSES), ...planFields,
  waves: { ...nullable(arrayOf(waveRead)), description: 'With steps: the waves of services with a rollout, in order (null: the plan has none)' },
  steps: arrayOf(stepRead),
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
