// Crash safety: a plan whose process died (its lease ran out) is never left running. Its running
// step is marked failed (the container may be half-way), what was still pending is skipped, and the
// plan is rolled back when autoRollback is on, else it ends failed. A plan that was rolling back
// resumes its rollback. Checked at start-up and then every few seconds (leases expire over time).
import type { Services } from '../../services.js';
import type { DeploymentPlanRow } from '../../store/repositories/deployment-plans.js';
import { planEvent } from './plan-events.js';
import { LEASE_MS } from './plan-engine.js';

const INTERRUPTED = 'the controller stopped while this step ran';

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
  await s.db('plan_steps').where({ planId: plan.id, status: 'running' })
    .update({ status: 'failed', error: INTERRUPTED, finishedAt: s.db.fn.now(), updatedAt: s.db.fn.now() });
  await s.db('plan_steps').where({ planId: plan.id, status: 'pending' })
    .update({ status: plan.cancelRequested ? 'cancelled' : 'skipped', updatedAt: s.db.fn.now() });
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
  await recoverStalePlans(s).catch((e) => s.logger.warn('plan recovery failed', { error: (e as Error).message }));
  const timer = setInterval(() => void recoverStalePlans(s).catch((e) => s.logger.warn('plan recovery failed', { error: (e as Error).message })), LEASE_MS / 2);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await s.plans.stop();
  };
}
