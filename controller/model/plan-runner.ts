import type { DeploymentPlanRow, DeploymentPlansRepository } from '../store/repositories/deployment-plans.js';
import type { PlanStepsRepository } from '../store/repositories/plan-steps.js';
import type { DeploymentArtifactsRepository } from '../store/repositories/deployment-artifacts.js';

/**
 * `Services.plans`: the deployment plans, their steps and artifacts, and the engine that runs
 * them. The deployment reconciler implements it (reconcilers/deployment/plans/plan-engine.ts)
 * and start-up builds it (controller/model/reconcilers.ts): controller/ and the API name the
 * engine through this type, so nothing under controller/ imports reconcilers/.
 */
export interface PlanRunner {
  readonly repo: DeploymentPlansRepository;
  readonly steps: PlanStepsRepository;
  readonly artifacts: DeploymentArtifactsRepository;
  /** This process's lease name. */
  readonly owner: string;
  /** A plan whose heartbeat is older than this is taken over by another replica (PLAN_LEASE_MS). */
  readonly leaseMs: number;
  /** Renews the lease of every plan this process runs. */
  start(): void;
  stop(): Promise<void>;
  /** Starts a pending plan in the background; only the entrance calls it. */
  startPlan(planId: string): Promise<DeploymentPlanRow>;
  cancel(planId: string): Promise<DeploymentPlanRow>;
  /** Manual rollback of a finished plan. */
  rollback(planId: string): Promise<DeploymentPlanRow>;
  /** Resolves when the plan is in a terminal state (or the timeout passes). */
  waitFor(planId: string, timeoutMs?: number): Promise<DeploymentPlanRow>;
  /** Plans this process is working on right now. */
  activeIds(): string[];
  /** Continues a plan taken over from a process that stopped. */
  resume(plan: DeploymentPlanRow): void;
  /** Runs `work` in the background under this process's lease. */
  launch(planId: string, work: () => Promise<void>): void;
  /** Rolls back every touched step of the plan, newest first. */
  rollBackSteps(plan: DeploymentPlanRow, manual?: boolean): Promise<void>;
}
