// One step of a plan on its server, and its undo. Each runs under the server's lock, records its
// state transitions and log as they happen, and publishes them as events.
import type { Services } from '../../services.js';
import type { DeploymentPlanRow } from '../../store/repositories/deployment-plans.js';
import type { PlanStepRow, PlanStepsRepository } from '../../store/repositories/plan-steps.js';
import { deployDeployment, removeDeploymentContainer } from '../deploy-deployment.js';
import { messageOf } from '../message-of.js';
import { withServerLock } from '../server-lock.js';
import { deploymentEvent, stepEvent } from './plan-events.js';

/** One deploy step; false when it failed. */
export async function runDeployStep(s: Services, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow): Promise<boolean> {
  const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
  const running = await steps.transition(st.id, ['pending'], {
    status: 'running', startedAt: new Date(), previousImageTag: d?.imageTag ?? null,
  });
  if (!running) return true;
  await stepEvent(s, plan, running);
  const log = (line: string) => steps.appendLog(st.id, line);
  try {
    if (!d) throw new Error('the deployment no longer exists');
    const service = (await s.services.findById(d.serviceId))!;
    const image = service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
    if (!image) throw new Error(`service ${service.name} has no container image`);
    const out = await withServerLock(s.db, d.serverId, () => deployDeployment(s, {
      service, deployment: d, imageName: image.imageName, imageTag: st.imageTag!, pull: plan.pullImage,
      generate: plan.generateArtifacts, planId: plan.id, log,
      onTouch: async (mode) => { await steps.update(st.id, { mode }); },
    }));
    const updated = await s.deployments.update(d.id, {
      status: 'running', imageTag: st.imageTag, previousImageTag: d.imageTag !== st.imageTag ? d.imageTag : d.previousImageTag,
      containerId: out.containerId, imageDigest: out.imageId, lastDeployedAt: new Date(),
    });
    await deploymentEvent(s, updated!);
    const done = await steps.transition(st.id, ['running'], { status: 'succeeded', finishedAt: new Date() });
    await stepEvent(s, plan, done!);
    return true;
  } catch (e) {
    await log(`failed: ${messageOf(e)}`).catch(() => undefined);
    const done = await steps.transition(st.id, ['running'], { status: 'failed', error: messageOf(e).slice(0, 4000), finishedAt: new Date() });
    if (d) await s.deployments.update(d.id, { status: 'failed' }).then((u) => u && deploymentEvent(s, u));
    if (done) await stepEvent(s, plan, done);
    return false;
  }
}

/** Puts one step's deployment back to the tag it had before the step (or removes a first deploy). */
export async function rollBackStep(s: Services, steps: PlanStepsRepository, plan: DeploymentPlanRow, st: PlanStepRow): Promise<boolean> {
  const log = (line: string) => steps.appendLog(st.id, `rollback: ${line}`);
  try {
    const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
    if (st.status === 'failed' && st.mode === null) {
      await log('nothing had changed on the server');
    } else if (!d) {
      throw new Error('the deployment no longer exists');
    } else if (!st.previousImageTag) {
      await withServerLock(s.db, d.serverId, () => removeDeploymentContainer(s, d, log));
      const u = await s.deployments.update(d.id, { status: 'pending', imageTag: null, containerId: null, imageDigest: null });
      await deploymentEvent(s, u!);
    } else {
      const service = (await s.services.findById(d.serviceId))!;
      const image = (await s.containerImages.findById(service.containerImageId!))!;
      const out = await withServerLock(s.db, d.serverId, () => deployDeployment(s, {
        service, deployment: d, imageName: image.imageName, imageTag: st.previousImageTag!, pull: true, planId: plan.id, log,
      }));
      const u = await s.deployments.update(d.id, {
        status: 'running', imageTag: st.previousImageTag, containerId: out.containerId, imageDigest: out.imageId, lastDeployedAt: new Date(),
      });
      await deploymentEvent(s, u!);
      if (st.serviceId) await s.services.recordDeployedTag(st.serviceId, st.previousImageTag);
    }
    const done = await steps.transition(st.id, ['succeeded', 'failed'], { status: 'rolled_back' });
    if (done) await stepEvent(s, plan, done);
    return true;
  } catch (e) {
    await log(`failed: ${messageOf(e)}`).catch(() => undefined);
    await steps.update(st.id, { rollbackError: messageOf(e).slice(0, 4000) });
    return false;
  }
}
