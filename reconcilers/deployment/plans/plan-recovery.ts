// Crash safety across replicas: a plan whose process died (its lease ran out) is taken over by
// whichever replica sweeps first (SKIP LOCKED) and never left running. A deploy goes on where it
// stopped: the step that was running runs again, then the rest. A plan taken over too often (its
// steps keep killing the processes that run them) ends instead: its running step is marked failed,
// what was pending is skipped, and it is rolled back when autoRollback is on, else it ends failed.
// A plan that was rolling back resumes its rollback. Swept at start-up and then twice per lease.
import type { Services } from '../../../controller/services.js';
import type { DeploymentPlanRow, StalePlan } from '../../../controller/store/repositories/deployment-plans.js';
import { recordPlanOutcome } from '../../service/revisions.js';
import { planEvent, stepEvent } from './plan-events.js';
import { Outage } from '../../../controller/queue/outage.js';
import { databaseLastUnavailableAt } from '../../../controller/store/connection-errors.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import { settleInterruptedStep } from '../effects/deploy-deployment.js';
import { withServerLock } from '../../../controller/deploy/server-lock.js';
import { messageOf } from '../../../controller/deploy/message-of.js';

/**
 * What interrupted a plan, as far as this process can tell: another process held it (that
 * controller stopped or was restarted), or this process held it and its runner stopped (the
 * database went away under it, or something unexpected). Step errors caused by a server say so
 * themselves, naming the server (host errors).
 */
export function interruptionOf(plan: Pick<StalePlan, 'previousOwner' | 'previousHeartbeatAt'>, ownOwner: string, leaseMs: number): string {
  if (plan.previousOwner !== ownOwner) {
    return 'the controller stopped (or was restarted) while this step ran; the step may have been half-done on the server';
  }
  const lastBeat = plan.previousHeartbeatAt ? new Date(plan.previousHeartbeatAt).getTime() : 0;
  if (databaseLastUnavailableAt() >= lastBeat - leaseMs) {
    return 'the database was unreachable while this step ran, so its progress could not be recorded; the step may have been half-done on the server';
  }
  return 'this step stopped unexpectedly (the plan runner failed; see the controller log); the step may have been half-done on the server';
}

/** What recovery reads and writes: the plans, the server locks, and what the calls below need. */
type RecoveryServices = Pick<Services, 'plans' | 'deployments' | 'locks' | 'logger'>
  & Parameters<typeof recordPlanOutcome>[0] & Parameters<typeof planEvent>[0] & Parameters<typeof settleInterruptedStep>[0];

/** Past this many takeovers a plan is ended, not resumed again. */
export const MAX_TAKEOVERS = 2;

export async function recoverStalePlans(s: RecoveryServices): Promise<number> {
  const taken = await s.plans.repo.takeOverStale(s.plans.owner, s.plans.leaseMs, [...s.plans.activeIds()]);
  for (const plan of taken) {
    // a plan paused between waves runs nothing that could have killed its process: it waits on, however often taken over
    const resume = plan.status === 'running' && plan.previousOwner !== s.plans.owner
      && (plan.takeovers <= MAX_TAKEOVERS || plan.waveState?.phase === 'paused');
    s.logger.warn('taking over a plan whose lease ran out', { planId: plan.id, status: plan.status, resume, takeovers: plan.takeovers });
    await recoverOne(s, plan, resume);
  }
  return taken.length;
}

async function recoverOne(s: RecoveryServices, plan: StalePlan, resume: boolean): Promise<void> {
  if (plan.status === 'rolling_back') {
    s.plans.launch(plan.id, () => s.plans.rollBackSteps(plan));
    return;
  }
  const INTERRUPTED = interruptionOf(plan, s.plans.owner, s.plans.leaseMs);
  if (resume) {
    for (const st of await s.plans.steps.ofPlan(plan.id)) {
      if (st.status === 'running') await s.plans.steps.appendLog(st.id, `${INTERRUPTED}; another controller took the plan over and runs the step again`);
    }
    s.plans.resume(plan);
    return;
  }
  const interrupted = (await s.plans.steps.ofPlan(plan.id)).filter((st) => st.status === 'running');
  if (plan.supersededBy) return endSuperseded(s, plan, interrupted, INTERRUPTED);
  await s.plans.steps.failRunning(plan.id, INTERRUPTED);
  await s.plans.steps.endPending(plan.id, plan.cancelRequested ? 'cancelled' : 'skipped');
  if (plan.autoRollback) {
    const rolling = await s.plans.repo.transition(plan.id, ['running'], { status: 'rolling_back', error: INTERRUPTED });
    if (rolling) {
      await planEvent(s, rolling);
      s.plans.launch(plan.id, () => s.plans.rollBackSteps(rolling));
    }
    return;
  }
  const failed = await s.plans.repo.transition(plan.id, ['running'], { status: 'failed', error: INTERRUPTED, finishedAt: new Date() });
  if (failed) {
    await recordPlanOutcome(s, failed, await s.plans.steps.ofPlan(plan.id));
    await planEvent(s, failed);
  }
  // nothing runs the interrupted steps again: settle what they left aside on their servers
  for (const st of interrupted) await settleStep(s, st);
}

/**
 * A plan a newer request superseded, interrupted: it never rolls back (as the engine's own
 * runner would not), since the newer plan owns its services and may have deployed the same
 * containers already (found by bench/chaos.ts: after a failover, such a plan rolled a container
 * back over the newer plan's rollout of the very same revision). It ends cancelled, its
 * interrupted steps with it, and what they left aside on their servers is settled.
 */
async function endSuperseded(s: RecoveryServices, plan: StalePlan, interrupted: PlanStepRow[], why: string): Promise<void> {
  for (const ended of await s.plans.steps.cancelRunning(plan.id, `${why}; not run again: superseded by plan ${plan.supersededBy}, which converges this container`)) {
    await stepEvent(s, plan, ended);
  }
  await s.plans.steps.endPending(plan.id, 'cancelled');
  const done = await s.plans.repo.transition(plan.id, ['running'], { status: 'cancelled', error: `superseded by plan ${plan.supersededBy}`, finishedAt: new Date() });
  if (done) {
    await recordPlanOutcome(s, done, await s.plans.steps.ofPlan(plan.id));
    await planEvent(s, done);
  }
  for (const st of interrupted) await settleStep(s, st);
}

/**
 * An ended step that was interrupted in a direct recreate may have left the old container aside
 * (`<name>-stevedore-old`, stopped, with the previous env and secrets): it is removed when the new
 * one runs, or put back when the new one never started (direct-recreate.ts settleAside). A step
 * resumed or rolled back is settled by the deploy itself, which does this first.
 */
async function settleStep(s: RecoveryServices, st: PlanStepRow): Promise<void> {
  const d = st.deploymentId ? await s.deployments.findById(st.deploymentId) : undefined;
  if (!d) return;
  const log = (line: string) => s.plans.steps.appendLog(st.id, `recovery: ${line}`);
  try {
    await withServerLock(s.locks, d.serverId, () => settleInterruptedStep(s, d, log));
  } catch (e) {
    s.logger.warn('plan recovery: could not settle an interrupted step on its server', { stepId: st.id, error: messageOf(e) });
    await log(`could not settle the container left aside: ${messageOf(e)}`).catch(() => undefined);
  }
}

/** Worker: the plan engine's heartbeat plus the recovery sweep. */
export async function startPlanWorker(s: RecoveryServices): Promise<() => Promise<void>> {
  s.plans.start();
  const outage = new Outage(s.logger, 'plan recovery sweep');
  const sweep = () => recoverStalePlans(s).then(() => outage.ok(), (e) => outage.failed(e));
  await sweep();
  const timer = setInterval(() => void sweep(), Math.max(100, s.plans.leaseMs / 2));
  timer.unref();
  return async () => {
    clearInterval(timer);
    await s.plans.stop();
  };
}
