// Crash safety: a plan whose process died (its lease ran out) is never left running. Its running
// step is marked failed (the container may be half-way), what was still pending is skipped, and the
// plan is rolled back when autoRollback is on, else it ends failed. A plan that was rolling back
// resumes its rollback. Checked at start-up and then every few seconds (leases expire over time).
import type { Services } from '../../services.js';
import type { DeploymentPlanRow } from '../../store/repositories/deployment-plans.js';
import { planEvent } from './plan-events.js';
import { LEASE_MS } from './plan-engine.js';
import { Outage } from '../../queue/outage.js';
import { databaseLastUnavailableAt } from '../../store/connection-errors.js';

/**
 * What interrupted a plan, as far as this process can tell: another process held it (that
 * controller stopped or was restarted), or this process held it and its runner stopped (the
 * database went away under it, or something unexpected). Step errors caused by a server say so
 * themselves, naming the server (host errors).
 */
export function interruptionOf(plan: Pick<DeploymentPlanRow, 'owner' | 'heartbeatAt'>, ownOwner: string): string {
  if (plan.owner !== ownOwner) {
    return 'the controller stopped (or was restarted) while this step ran; the step may have been half-done on the server';
  }
  const lastBeat = plan.heartbeatAt ? new Date(plan.heartbeatAt).getTime() : 0;
  if (databaseLastUnavailableAt() >= lastBeat - LEASE_MS) {
    return 'the database was unreachable while this step ran, so its progress could not be recorded; the step may have been half-done on the server';
  }
  return 'this step stopped unexpectedly (the plan runner failed; see the controller log); the step may have been half-done on the server';
}

export async function recoverStalePlans(s: Services): Promise<number> {
  const stale = await s.plans.repo.stale(LEASE_MS);
  let n = 0;
  for (const plan of stale) {
    if (s.plans.isActive(plan.id)) continue;
    if (!(await s.plans.repo.claim(plan, s.plans.owner))) continue; // another replica took it
    n++;
    s.logger.warn('recovering an interrupted plan', { planId: plan.id, status: plan.status });
    await recoverOne(s, plan);
  }
  return n;
}

async function recoverOne(s: Services, plan: DeploymentPlanRow): Promise<void> {
  const INTERRUPTED = interruptionOf(plan, s.plans.owner);
  await s.plans.steps.failRunning(plan.id, INTERRUPTED);
  await s.plans.steps.endPending(plan.id, plan.cancelRequested ? 'cancelled' : 'skipped');
  if (plan.status === 'rolling_back') {
    s.plans.launch(plan.id, () => s.plans.rollBackSteps(plan));
    return;
  }
  if (plan.autoRollback) {
    const rolling = await s.plans.repo.transition(plan.id, ['running'], { status: 'rolling_back', error: INTERRUPTED });
    if (rolling) {
      await planEvent(s, rolling);
      s.plans.launch(plan.id, () => s.plans.rollBackSteps(rolling));
    }
    return;
  }
  const failed = await s.plans.repo.transition(plan.id, ['running'], { status: 'failed', error: INTERRUPTED, finishedAt: new Date() });
  if (failed) await planEvent(s, failed);
}

/** Worker: the plan engine's heartbeat plus the recovery sweep. */
export async function startPlanWorker(s: Services): Promise<() => Promise<void>> {
  s.plans.start();
  const outage = new Outage(s.logger, 'plan recovery sweep');
  const sweep = () => recoverStalePlans(s).then(() => outage.ok(), (e) => outage.failed(e));
  await sweep();
  const timer = setInterval(() => void sweep(), LEASE_MS / 2);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await s.plans.stop();
  };
}
