// One step of a plan on its server, and its undo. Each runs under the server's lock, records its
// state transitions and log as they happen, and publishes them as events.
import type { Services } from '../../../controller/services.js';
import type { DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow, PlanStepsRepository } from '../../../controller/store/repositories/plan-steps.js';
import { deployDeployment, removeDeploymentContainer } from '../effects/deploy-deployment.js';
import { messageOf } from '../../../controller/deploy/message-of.js';
import { withServerLock } from '../../../controller/deploy/server-lock.js';
import { deploymentEvent, stepEvent } from './plan-events.js';
import { findContainer } from '../../../controller/deploy/find-container.js';
import { LABEL } from '../../../controller/model/desired-container.js';
import type { PlanPulls } from './plan-pulls.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { recordRolledBack, recordRolloutFailure, recordRolloutSuccess } from '../../service/record-rollout.js';
import { revisionSpec } from '../../service/revisions.js';
import { serviceAtRevision, type RevisionSpec } from '../../service/revision-spec.js';

export type StepResult = 'succeeded' | 'failed' | 'cancelled';

/**
 * What a step reads and writes: its own reads (the deployment, its service and image, the
 * server's Docker and lock) and what the effects, rollout records and events it calls need.
 */
export type StepServices = Pick<Services, 'deployments' | 'services' | 'containerImages' | 'hosts' | 'locks'>
  & Parameters<typeof deployDeployment>[0] & Parameters<typeof removeDeploymentContainer>[0]
  & Parameters<typeof recordRolloutSuccess>[0] & Parameters<typeof recordRolloutFailure>[0] & Parameters<typeof recordRolledBack>[0]
  & Parameters<typeof revisionSpec>[0] & Parameters<typeof deploymentEvent>[0] & Parameters<typeof stepEvent>[0];

/**
 * One deploy step. The server's lock is taken first and `stillWanted` asked inside it, right
 * before anything starts: a step of a plan superseded (or cancelled) meanwhile never runs, so an
 * older plan's step never runs on a server after a newer plan's.
 */
export async function runDeployStep(s: StepServices, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow,
  stillWanted: () => Promise<boolean>, pulls?: PlanPulls): Promise<StepResult> {
  const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
  const log = (line: string) => steps.appendLog(st.id, line);
  try {
    if (!d) throw new Error('the deployment no longer exists');
    return await withServerLock(s.locks, d.serverId, async () => {
      if (!(await stillWanted())) return 'cancelled';
      // a step taken over while it ran keeps what it recorded when it first started
      const running = st.status === 'running'
        ? await steps.transition(st.id, ['running'], { status: 'running' })
        : await steps.transition(st.id, ['pending'], { status: 'running', startedAt: new Date(), previousImageTag: d.imageTag ?? null, previousRevision: d.revision ?? null });
      if (!running) return 'succeeded';
      await stepEvent(s, plan, running);
      const { service, image, revision } = await stepTarget(s, d, st.revision);
      if (revision !== null) await log(`rolling out revision ${st.revision} of ${service.name}`);
      const out = await deployDeployment(s, {
        service, deployment: d, imageName: image.imageName, imageTag: st.imageTag!, pull: plan.pullImage,
        generate: plan.generateArtifacts, planId: plan.id, log, pulls, revision,
        onTouch: async (mode) => { await steps.update(st.id, { mode }); },
      });
      const updated = await s.deployments.update(d.id, {
        status: 'running', imageTag: st.imageTag, previousImageTag: d.imageTag !== st.imageTag ? d.imageTag : d.previousImageTag,
        containerId: out.containerId, imageDigest: out.imageId, lastDeployedAt: new Date(), revision: st.revision,
      });
      await recordRolloutSuccess(s, updated!);
      await deploymentEvent(s, updated!);
      const done = await steps.transition(st.id, ['running'], { status: 'succeeded', finishedAt: new Date() });
      await stepEvent(s, plan, done!);
      return 'succeeded';
    });
  } catch (e) {
    return failStep(s, steps, plan, st, e, async (error) => {
      if (!d) return;
      // status is what runs: a direct recreate that failed put the old container back
      const status = await observedStatus(s, d);
      const u = await s.deployments.update(d.id, { status });
      await recordRolloutFailure(s, u ?? d, error);
      if (u) await deploymentEvent(s, u);
    });
  }
}

/** A step that threw: its log and error say why; `record` writes what the failure means for its deployment. */
async function failStep(s: StepServices, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow, e: unknown,
  record: (error: string) => Promise<void> = async () => undefined): Promise<'failed'> {
  const error = messageOf(e).slice(0, 4000);
  await steps.appendLog(st.id, `failed: ${error}`).catch(() => undefined);
  const done = await steps.transition(st.id, ['pending', 'running'], { status: 'failed', error, finishedAt: new Date() });
  await record(error);
  if (done) await stepEvent(s, plan, done);
  return 'failed';
}

/**
 * A remove step: the container of a deployment a manifest pruned goes away, under the server's
 * lock, only if it carries that deployment's ownership label (never someone else's container).
 * One `docker rm -f`: it happened or it did not.
 */
export async function runRemoveStep(s: StepServices, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow,
  stillWanted: () => Promise<boolean>): Promise<StepResult> {
  const log = (line: string) => steps.appendLog(st.id, line);
  try {
    if (!st.serverId || !st.removedDeploymentId) throw new Error('the server no longer exists');
    return await withServerLock(s.locks, st.serverId, async () => {
      if (!(await stillWanted())) return 'cancelled';
      const running = st.status === 'running' ? st : await steps.transition(st.id, ['pending'], { status: 'running', startedAt: new Date() });
      if (!running) return 'succeeded';
      await stepEvent(s, plan, running);
      const gone = { id: st.removedDeploymentId!, serverId: st.serverId!, containerName: st.containerName, composePath: null } as DeploymentRow;
      await removeDeploymentContainer(s, gone, log, plan.trigger === 'selector' ? 'its server no longer matches the serverSelector' : 'its deployment was pruned');
      const done = await steps.transition(st.id, ['running'], { status: 'succeeded', finishedAt: new Date() });
      await stepEvent(s, plan, done!);
      return 'succeeded';
    });
  } catch (e) {
    return failStep(s, steps, plan, st, e);
  }
}

/** The service and image a step renders: its revision's when it has one, else the service's row. */
async function stepTarget(s: StepServices, d: DeploymentRow, revision: number | null) {
  const row = (await s.services.findById(d.serviceId))!;
  const spec = (await revisionSpec(s, d.serviceId, revision)) ?? null;
  const service = spec ? serviceAtRevision(row, spec) : row;
  const image = service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
  if (!image) throw new Error(`service ${service.name} has no container image`);
  return { service, image, revision: spec };
}

/** 'running' when the deployment's container runs, else 'failed' (or 'pending' when it never ran). */
async function observedStatus(s: StepServices, d: DeploymentRow): Promise<string> {
  try {
    const docker = await s.hosts.docker(d.serverId);
    const id = await findContainer(docker, d.containerName);
    if (!id) return d.imageTag ? 'failed' : 'pending';
    return (await docker.getContainer(id).inspect()).State.Running ? 'running' : 'failed';
  } catch {
    return 'failed';
  }
}

/**
 * Puts one step's deployment back: to `lastGood`, its service's last good revision, when the
 * rollback is automatic and the service has one; else (a manual rollback, a service that never
 * succeeded) to the revision it ran before the step, or removes a first deploy.
 */
export async function rollBackStep(s: StepServices, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow, manual = false,
  lastGood: number | null = null): Promise<boolean> {
  const log = (line: string) => steps.appendLog(st.id, `rollback: ${line}`);
  try {
    const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
    // a deployment that ran something before this plan (not a first deploy) goes to the last good revision
    if (lastGood !== null && d && (st.status === 'skipped' ? d.imageTag !== null : st.previousImageTag !== null)) {
      return await restoreLastGood(s, steps, plan, st, d, lastGood, log);
    }
    if (st.status === 'skipped') return true;
    if (st.status === 'failed' && st.mode === null) {
      await log('nothing had changed on the server');
      if (d) {
        const u = await s.deployments.update(d.id, { status: await observedStatus(s, d) });
        if (u) await deploymentEvent(s, u);
      }
    } else if (!d) {
      throw new Error('the deployment no longer exists');
    } else if (!st.previousImageTag) {
      const removed = await withServerLock(s.locks, d.serverId, async () => {
        if (await deployedSince(steps, plan, st, await s.deployments.findById(d.id), log)) return false;
        await removeDeploymentContainer(s, d, log);
        return true;
      });
      if (removed) {
        const u = await s.deployments.update(d.id, { status: 'pending', imageTag: null, containerId: null, imageDigest: null, revision: null });
        await afterRollback(s, u!, st, plan, manual);
        await deploymentEvent(s, u!);
      }
    } else {
      // the revision the container ran before the step, as it was rendered then (not today's spec:
      // that is what just failed); a step from before revisions goes back to its tag
      const { service, image, revision } = await stepTarget(s, d, st.previousRevision);
      const out = await withServerLock(s.locks, d.serverId, async () => {
        if (await deployedSince(steps, plan, st, await s.deployments.findById(d.id), log)) return null;
        if (revision !== null) await log(`restoring revision ${st.previousRevision} (${st.previousImageTag})`);
        return deployDeployment(s, {
          service, deployment: d, imageName: image.imageName, imageTag: st.previousImageTag!, pull: true, planId: plan.id, log, revision,
        });
      });
      const u = out && await s.deployments.update(d.id, {
        status: 'running', imageTag: st.previousImageTag, containerId: out.containerId, imageDigest: out.imageId, lastDeployedAt: new Date(),
        revision: st.previousRevision,
      });
      if (u) {
        await afterRollback(s, u, st, plan, manual);
        await deploymentEvent(s, u);
      }
    }
    const done = await steps.transition(st.id, ['succeeded', 'failed'], { status: 'rolled_back' });
    if (done) await stepEvent(s, plan, done);
    return true;
  } catch (e) {
    await log(`failed: ${messageOf(e)}`).catch(() => undefined);
    // the outcome is what runs on the server, not whether this attempt went through: a recreate
    // that failed puts the old container back, so the previous version may be serving still
    if (await previousVersionRuns(s, st)) {
      await log(`the previous version (${st.previousImageTag}) still runs on the server: rolled back`).catch(() => undefined);
      const done = await steps.transition(st.id, ['succeeded', 'failed'], { status: 'rolled_back' });
      if (done) await stepEvent(s, plan, done);
      return true;
    }
    await steps.update(st.id, { rollbackError: messageOf(e).slice(0, 4000) });
    return false;
  }
}

/**
 * An automatic rollback of a deployment to its service's last good revision: what the service's
 * status says it falls back to. Not only the revision before the step: plans this one superseded
 * never roll back, and may have left the container on a revision of their own (found by
 * bench/chaos.ts: after three superseded deploys and a failed one, a container stayed on the
 * second while the service said it ran the last good one). So a step skipped by this plan is
 * restored too. A deployment a newer plan has deployed since (a higher revision: numbers only
 * grow) is left to that plan; one that never changed and runs the last good revision is left
 * untouched (its server may be the one that is down).
 */
async function restoreLastGood(s: StepServices, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow, d: DeploymentRow,
  lastGood: number, log: (line: string) => Promise<void>): Promise<boolean> {
  const untouched = st.status === 'skipped' || (st.status === 'failed' && st.mode === null);
  let spec: Awaited<ReturnType<typeof stepTarget>>['revision'] = null;
  try {
    const target = await stepTarget(s, d, lastGood);
    spec = target.revision;
    if (!spec) throw new Error(`revision ${lastGood}, the last good one, is gone`);
    const restored = await withServerLock(s.locks, d.serverId, async () => {
      const now = (await s.deployments.findById(d.id)) ?? d;
      if (await deployedSince(steps, plan, st, now, log)) return null;
      if (untouched && now.revision === lastGood) {
        await log(`nothing had changed on the server: it runs revision ${lastGood}, the last good one`);
        return 'as-is' as const;
      }
      await log(`restoring revision ${lastGood}, the last good one (${spec!.image.tag}); it ran revision ${now.revision ?? 'none'}`);
      return deployDeployment(s, {
        service: target.service, deployment: now, imageName: target.image.imageName, imageTag: spec!.image.tag, pull: true, planId: plan.id, log, revision: spec,
      });
    });
    if (restored === 'as-is') {
      const u = await s.deployments.update(d.id, { status: await observedStatus(s, d) });
      if (u) await deploymentEvent(s, u);
    } else if (restored) {
      const u = await s.deployments.update(d.id, {
        status: 'running', imageTag: spec.image.tag, containerId: restored.containerId, imageDigest: restored.imageId, lastDeployedAt: new Date(), revision: lastGood,
      });
      if (u) {
        await afterRollback(s, u, st, plan, false);
        await deploymentEvent(s, u);
      }
    }
  } catch (e) {
    await log(`failed: ${messageOf(e)}`).catch(() => undefined);
    // a recreate that failed puts the old container back: that may be the last good one
    if (!(spec && await lastGoodRuns(s, d, lastGood, spec))) {
      await steps.update(st.id, { rollbackError: messageOf(e).slice(0, 4000) });
      return false;
    }
    await log(`revision ${lastGood}, the last good one, runs on the server: rolled back`).catch(() => undefined);
  }
  const done = await steps.transition(st.id, ['succeeded', 'failed'], { status: 'rolled_back' });
  if (done) await stepEvent(s, plan, done);
  return true;
}

/** Whether the deployment's container runs the last good revision's spec (its stevedore.spec-hash label); recorded so when it does. */
async function lastGoodRuns(s: StepServices, d: DeploymentRow, lastGood: number, spec: RevisionSpec): Promise<boolean> {
  const wanted = spec.deployments.find((x) => x.deploymentId === d.id)?.specHash;
  const c = wanted ? await runningContainer(s, d) : null;
  if (!c || c.Config.Labels?.[LABEL.specHash] !== wanted) return false;
  const u = await s.deployments.update(d.id, { status: 'running', imageTag: spec.image.tag, containerId: c.Id, revision: lastGood });
  if (u) await deploymentEvent(s, u);
  return true;
}

/** The deployment's container as Docker reports it while it runs; null when it is missing, stopped or cannot be asked. */
async function runningContainer(s: StepServices, d: DeploymentRow) {
  try {
    const docker = await s.hosts.docker(d.serverId);
    const id = await findContainer(docker, d.containerName);
    const c = id ? await docker.getContainer(id).inspect() : null;
    return c?.State.Running ? c : null;
  } catch {
    return null;
  }
}

/**
 * Whether another plan deployed the step's deployment since this plan: a newer plan ran a step on
 * it, or it runs a revision newer than the step's (numbers only grow). Then a rollback would put
 * back something older over a newer request's work, so it leaves the container as it is. Asked
 * inside the server's lock, as a step's own `stillWanted`: a newer plan's step may have run
 * between this plan's step and its rollback (a recovered plan is rolled back after a failover or
 * a replica's death, long after), and a newer plan may have asked for the very same revision.
 */
async function deployedSince(steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow, now: DeploymentRow | undefined,
  log: (line: string) => Promise<unknown>): Promise<boolean> {
  if (!st.deploymentId || !now) return false;
  const newer = now.revision != null && st.revision != null && now.revision > st.revision;
  if (!newer && !(await steps.touchedByNewerPlan(st.deploymentId, plan))) return false;
  await log(`left as it is: a newer plan has since deployed it (it runs revision ${now.revision ?? 'none'}; this step rolled out ${st.revision ?? 'none'}, before it ${st.previousRevision ?? 'none'})`);
  return true;
}

/** Whether the step's deployment container runs, labelled with the tag it had before the step. */
async function previousVersionRuns(s: StepServices, st: PlanStepRow): Promise<boolean> {
  try {
    const d = st.previousImageTag && st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
    const c = d ? await runningContainer(s, d) : null;
    if (!d || !c || c.Config.Labels?.[LABEL.imageTag] !== st.previousImageTag) return false;
    const u = await s.deployments.update(d.id, { status: 'running', imageTag: st.previousImageTag, containerId: c.Id, revision: st.previousRevision });
    if (u) await deploymentEvent(s, u);
    return true;
  } catch {
    return false;
  }
}

/**
 * A manual rollback is a request: what it restored is what is desired (the engine writes the
 * tag). An automatic one restored the old version of a rollout that did not reach its desired
 * state: a failed step keeps its own cause, a step that had succeeded says it was rolled back.
 */
async function afterRollback(s: StepServices, d: DeploymentRow, st: PlanStepRow, plan: DeploymentPlanRow, manual: boolean) {
  if (manual) await recordRolloutSuccess(s, d);
  else if (st.status === 'succeeded') await recordRolledBack(s, d, plan.error ?? 'another step of the plan failed');
}
