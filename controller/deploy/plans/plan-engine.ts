// Executes deployment plans step by step, persisting every transition as it happens, and rolls
// them back. One instance per process; a lease (owner + heartbeat) tells other processes which
// plans are being worked on, so a crashed process's plans can be recovered (plan-recovery.ts).
import { randomUUID } from 'node:crypto';
import type { Services } from '../../services.js';
import { conflict } from '../../errors/app-error.js';
import { messageOf } from '../message-of.js';
import { DeploymentPlansRepository, type DeploymentPlanRow } from '../../store/repositories/deployment-plans.js';
import { PlanStepsRepository, type PlanStepRow } from '../../store/repositories/plan-steps.js';
import { rollBackStep, runDeployStep } from './plan-step.js';
import { DeploymentArtifactsRepository } from '../../store/repositories/deployment-artifacts.js';
import { buildPlan, type CreatePlanInput } from './plan-builder.js';
import { isTerminalPlan, outcomeOf, rollbackOutcome, stepsToRollBack, type PlanStatus } from './plan-states.js';
import { outcomeEvent, planEvent } from './plan-events.js';
import { previewPlan, type StepPreview } from './plan-preview.js';

const PARALLELISM = 4;
export const HEARTBEAT_MS = 2000;
export const LEASE_MS = 7000;

export class PlanEngine {
  readonly repo: DeploymentPlansRepository;
  readonly steps: PlanStepsRepository;
  readonly artifacts: DeploymentArtifactsRepository;
  /** This process's lease name. */
  readonly owner = randomUUID();
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly s: Services) {
    this.repo = new DeploymentPlansRepository(s.db);
    this.steps = new PlanStepsRepository(s.db);
    this.artifacts = new DeploymentArtifactsRepository(s.db);
  }

  start(): void {
    this.timer = setInterval(() => void this.repo.heartbeat(this.owner, [...this.active.keys()]).catch(() => undefined), HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    // a plan still running after this is left to the lease: the next process recovers it
    await Promise.race([Promise.allSettled([...this.active.values()]), new Promise((r) => setTimeout(r, 30_000).unref())]);
  }

  async createPlan(input: CreatePlanInput): Promise<DeploymentPlanRow> {
    const plan = await this.s.db.transaction((trx) => buildPlan(this.s, input, trx));
    await planEvent(this.s, plan);
    return plan;
  }

  /**
   * Creates and executes a plan deploying services (with their dependency order) to all their
   * deployments: what the deploy route and incoming webhooks call. Resolves once it has started;
   * `wait` resolves when it has finished.
   */
  async deployServices(environmentId: string, items: CreatePlanInput['items'], opts: Omit<CreatePlanInput, 'environmentId' | 'items'> & { wait?: boolean } = {}): Promise<DeploymentPlanRow> {
    const plan = await this.createPlan({ ...opts, environmentId, items });
    await this.executeOrDiscard(plan.id);
    return opts.wait ? this.waitFor(plan.id) : (await this.repo.findById(plan.id))!;
  }

  /** Executes a plan just created; if its checks refuse it, the plan never existed. */
  async executeOrDiscard(planId: string): Promise<void> {
    try {
      await this.execute(planId);
    } catch (e) {
      await this.s.db('deployment_plans').where({ id: planId, status: 'pending' }).delete();
      throw e;
    }
  }

  async withSteps(plan: DeploymentPlanRow) {
    return { plan, steps: await this.steps.ofPlan(plan.id) };
  }

  /** dryRun: what would happen, with every check that needs no server; nothing changes. */
  async execute(planId: string, opts: { dryRun?: boolean } = {}): Promise<{ plan: DeploymentPlanRow; preview?: StepPreview[] }> {
    const plan = (await this.repo.findById(planId))!;
    if (plan.status !== 'pending') throw conflict(`the plan is ${plan.status}; only a pending plan can be executed`);
    const preview = await previewPlan(this.s, plan, await this.steps.ofPlan(plan.id));
    if (opts.dryRun) return { plan, preview };
    const started = await this.repo.transition(plan.id, ['pending'], { status: 'running', startedAt: new Date(), owner: this.owner, heartbeatAt: new Date() });
    if (!started) throw conflict('the plan is no longer pending');
    await planEvent(this.s, started);
    this.launch(started.id, () => this.run(started));
    return { plan: started };
  }

  async cancel(planId: string): Promise<DeploymentPlanRow> {
    const plan = (await this.repo.findById(planId))!;
    if (plan.status === 'pending') {
      const done = await this.repo.transition(plan.id, ['pending'], { status: 'cancelled', cancelRequested: true, finishedAt: new Date() });
      if (done) {
        await this.s.db('plan_steps').where({ planId, status: 'pending' }).update({ status: 'cancelled', updatedAt: this.s.db.fn.now() });
        await planEvent(this.s, done);
        return done;
      }
    }
    if (plan.status === 'running' || plan.status === 'pending') {
      // the runner reads the flag before each step
      const [row] = await this.s.db('deployment_plans').where({ id: planId }).whereIn('status', ['pending', 'running'])
        .update({ cancelRequested: true, updatedAt: this.s.db.fn.now() }).returning('*');
      if (row) return row as DeploymentPlanRow;
    }
    throw conflict(`the plan is ${plan.status}; only a pending or running plan can be cancelled`);
  }

  /** Manual rollback: redeploy the previous tag of every deployment the plan touched. */
  async rollback(planId: string): Promise<DeploymentPlanRow> {
    const plan = (await this.repo.findById(planId))!;
    if (!isTerminalPlan(plan.status) || plan.status === 'rolled_back') throw conflict(`the plan is ${plan.status} and cannot be rolled back now`);
    const rolling = await this.repo.transition(plan.id, [plan.status], { status: 'rolling_back', owner: this.owner, heartbeatAt: new Date() });
    if (!rolling) throw conflict('the plan changed state; try again');
    await planEvent(this.s, rolling);
    this.launch(plan.id, () => this.rollBackSteps(rolling));
    return rolling;
  }

  /** Resolves when the plan is in a terminal state (or the timeout passes). */
  async waitFor(planId: string, timeoutMs = 10 * 60_000): Promise<DeploymentPlanRow> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.active.get(planId);
      const p = (await this.repo.findById(planId))!;
      if (isTerminalPlan(p.status) || Date.now() > deadline) return p;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Plans this process is working on right now (their lease is renewed by the heartbeat). */
  isActive(planId: string): boolean {
    return this.active.has(planId);
  }

  /** Runs `work` in the background under this process's lease. */
  launch(planId: string, work: () => Promise<void>): void {
    const p = work().catch((e) => this.s.logger.error('plan runner crashed', { planId, error: messageOf(e) }))
      .finally(() => this.active.delete(planId));
    this.active.set(planId, p);
  }

  private async run(plan: DeploymentPlanRow): Promise<void> {
    const steps = await this.steps.ofPlan(plan.id);
    const stages = [...new Set(steps.map((x) => x.stage))].sort((a, b) => a - b);
    let failed = false;
    let cancelled = false;
    for (const stage of stages) {
      const queue = steps.filter((x) => x.stage === stage && x.status === 'pending');
      const width = plan.strategy === 'parallel' ? PARALLELISM : 1;
      const worker = async () => {
        for (let st = queue.shift(); st; st = queue.shift()) {
          // rolling stops at the first failure; parallel lets started steps finish but starts no more
          if (failed) return;
          if ((await this.repo.findById(plan.id))!.cancelRequested) { cancelled = true; return; }
          if (!(await runDeployStep(this.s, this.steps, plan, st))) failed = true;
        }
      };
      await Promise.all(Array.from({ length: Math.min(width, queue.length) }, worker));
      if (failed || cancelled) break;
    }
    const fresh = (await this.repo.findById(plan.id))!;
    await this.s.db('plan_steps').where({ planId: plan.id, status: 'pending' })
      .update({ status: fresh.cancelRequested && !failed ? 'cancelled' : 'skipped', updatedAt: this.s.db.fn.now() });
    if (failed && plan.autoRollback) {
      const rolling = await this.repo.transition(plan.id, ['running'], { status: 'rolling_back', error: 'a step failed; rolling back' });
      if (rolling) {
        await planEvent(this.s, rolling);
        return this.rollBackSteps(rolling);
      }
    }
    const all = await this.steps.ofPlan(plan.id);
    await this.finish(plan.id, 'running', outcomeOf(all, fresh.cancelRequested), failed ? 'a step failed' : null);
    await this.recordServiceTags(all);
  }

  /** Rolls back every touched step, newest first; the plan ends rolled_back only if all came back. */
  async rollBackSteps(plan: DeploymentPlanRow): Promise<void> {
    // newest stage first (dependents before what they depend on); within a stage, in parallel
    const todo = stepsToRollBack(await this.steps.ofPlan(plan.id));
    const results: boolean[] = [];
    for (const stage of [...new Set(todo.map((x) => x.stage))]) {
      const queue = todo.filter((x) => x.stage === stage);
      const worker = async () => { for (let st = queue.shift(); st; st = queue.shift()) results.push(await rollBackStep(this.s, this.steps, plan, st)); };
      await Promise.all(Array.from({ length: Math.min(PARALLELISM, queue.length) }, worker));
    }
    const outcome = rollbackOutcome(results);
    await this.finish(plan.id, 'rolling_back', outcome, outcome === 'rollback_failed' ? 'some deployments could not be rolled back' : plan.error);
  }

  private async finish(planId: string, from: PlanStatus, to: PlanStatus, error: string | null): Promise<void> {
    const done = await this.repo.transition(planId, [from], { status: to, finishedAt: new Date(), error });
    if (!done) return;
    await planEvent(this.s, done);
    await outcomeEvent(this.s, done, await this.steps.ofPlan(planId));
  }

  /** A service's recorded tag changes only when every one of its steps in the plan succeeded. */
  private async recordServiceTags(steps: PlanStepRow[]): Promise<void> {
    const byService = new Map<string, PlanStepRow[]>();
    for (const st of steps) if (st.serviceId) byService.set(st.serviceId, [...(byService.get(st.serviceId) ?? []), st]);
    for (const [serviceId, list] of byService) {
      if (!list.every((x) => x.status === 'succeeded')) continue;
      await this.s.services.recordDeployedTag(serviceId, list[0].imageTag!);
      const svc = await this.s.services.findById(serviceId);
      if (svc?.containerImageId) await this.s.containerImages.setCurrentTag(svc.containerImageId, list[0].imageTag!);
    }
  }
}
