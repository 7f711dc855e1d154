// Executes deployment plans step by step, persisting every transition as it happens, and rolls
// them back. One instance per process; a lease (owner + heartbeat) tells other processes which
// plans are being worked on, so another replica takes over the plans of a process that stopped
// (plan-recovery.ts). A runner whose lease was taken from it stops at its next step boundary.
import { randomUUID } from 'node:crypto';
import type { Services } from '../../../controller/services.js';
import { conflict } from '../../../controller/errors/app-error.js';
import { messageOf } from '../../../controller/deploy/message-of.js';
import { DeploymentPlansRepository, type DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import { PlanStepsRepository, type PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import { rollBackStep, runDeployStep, runRemoveStep, type StepServices } from './plan-step.js';
import { DeploymentArtifactsRepository } from '../../../controller/store/repositories/deployment-artifacts.js';
import { failureSummary } from './plan-failure.js';
import { PlanPulls } from './plan-pulls.js';
import { recordPlanOutcome, restoreDesiredAfterRollback } from '../../service/revisions.js';
import { refreshServiceConditions } from '../../service/record-rollout.js';
import { isTerminalPlan, outcomeOf, rollbackOutcome, stepsToRollBack, type PlanStatus } from '../../../controller/model/plan-states.js';
import { analysisFailedEvent, outcomeEvent, planEvent, stepEvent, waveStartedEvent } from './plan-events.js';
import { runAnalysis, type AnalysisTarget } from './analysis.js';
import type { PlanWave, WavePhase, WaveState } from '../../../controller/model/plan-waves.js';

const PARALLELISM = 4;
/** How often a paused plan looks whether it was promoted, resumed or cancelled (and a rollback whether older plans ended). */
const PAUSE_POLL_MS = 250;
/** How long an automatic rollback waits for the older plans it superseded to finish their steps. */
const OLDER_PLANS_WAIT_MS = 120_000;

/** What the engine reads and writes itself, and what the steps, pulls, records and events it runs need. */
export type EngineServices = Pick<Services, 'db' | 'config' | 'logger' | 'metrics' | 'fleetSeries' | 'services' | 'containerImages'>
  & StepServices & Parameters<PlanPulls['prefetch']>[0] & Parameters<typeof failureSummary>[0]
  & Parameters<typeof recordPlanOutcome>[0] & Parameters<typeof restoreDesiredAfterRollback>[0]
  & Parameters<typeof refreshServiceConditions>[0] & Parameters<typeof outcomeEvent>[0] & Parameters<typeof runAnalysis>[0];

export class PlanEngine {
  readonly repo: DeploymentPlansRepository;
  readonly steps: PlanStepsRepository;
  readonly artifacts: DeploymentArtifactsRepository;
  /** This process's lease name. */
  readonly owner = randomUUID();
  /** A plan whose heartbeat is older than this is taken over by another replica (PLAN_LEASE_MS). */
  readonly leaseMs: number;
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  /** Set by stop(): a plan waiting in a pause or an analysis is let go (its lease runs out and the next process resumes it). */
  private stopping = false;

  constructor(private readonly s: EngineServices) {
    this.repo = new DeploymentPlansRepository(s.db);
    this.steps = new PlanStepsRepository(s.db);
    this.artifacts = new DeploymentArtifactsRepository(s.db);
    this.leaseMs = s.config.replicas.planLeaseMs;
  }

  /** Renews the lease of every plan this process runs, three times per lease. */
  start(): void {
    this.timer = setInterval(() => void this.renewLeases().catch(() => undefined), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  private async renewLeases(): Promise<void> {
    const mine = [...this.active.keys()];
    const held = await this.repo.heartbeat(this.owner, mine);
    for (const id of mine) {
      // its runner finds out at the next step boundary and stops there
      if (!held.has(id) && this.active.has(id)) this.s.logger.warn('another replica took over a plan this one was running', { planId: id });
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    // a plan still running after this is left to the lease: the next process recovers it
    await Promise.race([Promise.allSettled([...this.active.values()]), new Promise((r) => setTimeout(r, 30_000).unref())]);
  }

  async withSteps(plan: DeploymentPlanRow) {
    return { plan, steps: await this.steps.ofPlan(plan.id) };
  }

  /**
   * Starts a pending plan in the background. Only the entrance (reconcilers/entrance.ts) calls
   * this, after it wrote the desired state the plan converges to. Returns the plan as it is now
   * (a plan superseded before it started is already cancelled).
   */
  async startPlan(planId: string): Promise<DeploymentPlanRow> {
    const started = await this.repo.transition(planId, ['pending'], { status: 'running', startedAt: new Date(), owner: this.owner, heartbeatAt: new Date() });
    if (!started) return (await this.repo.findById(planId))!;
    await planEvent(this.s, started);
    await this.refreshServices(await this.steps.ofPlan(planId));
    this.launch(started.id, () => this.run(started));
    return started;
  }

  async cancel(planId: string): Promise<DeploymentPlanRow> {
    const plan = (await this.repo.findById(planId))!;
    if (plan.status === 'pending') {
      const done = await this.repo.transition(plan.id, ['pending'], { status: 'cancelled', cancelRequested: true, finishedAt: new Date() });
      if (done) {
        await this.steps.endPending(planId, 'cancelled');
        await planEvent(this.s, done);
        return done;
      }
    }
    if (plan.status === 'running' || plan.status === 'pending') {
      // the runner reads the flag before each step
      const row = await this.repo.requestCancel(planId);
      if (row) return row;
    }
    throw conflict(`the plan is ${plan.status}; only a pending or running plan can be cancelled`);
  }

  /** Manual rollback: redeploy the previous tag of every deployment the plan touched. */
  async rollback(planId: string): Promise<DeploymentPlanRow> {
    const plan = (await this.repo.findById(planId))!;
    if (!isTerminalPlan(plan.status) || plan.status === 'rolled_back') throw conflict(`the plan is ${plan.status} and cannot be rolled back now`);
    if ((await this.steps.ofPlan(plan.id)).some((x) => x.action === 'remove')) throw conflict('a removed container cannot be put back: deploy its service again instead');
    // a newer request owns these services: rolling this one back would undo it behind its back
    const newer = await this.repo.otherActiveSharingServices(plan.id);
    if (newer) throw conflict(`plan "${newer.name}" (${newer.id}) is ${newer.status} for the same services`, 'Wait for it to end or cancel it, then roll back');
    const rolling = await this.repo.transition(plan.id, [plan.status], { status: 'rolling_back', owner: this.owner, heartbeatAt: new Date() });
    if (!rolling) throw conflict('the plan changed state; try again');
    await planEvent(this.s, rolling);
    this.launch(plan.id, () => this.rollBackSteps(rolling, true));
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
  activeIds(): string[] {
    return [...this.active.keys()];
  }

  /**
   * Continues a plan taken over from a process that stopped: the step it was running runs again
   * (a deploy step converges the container to the desired one, so a second run of a half-done
   * step finishes it), then the steps it had not started.
   */
  resume(plan: DeploymentPlanRow): void {
    this.launch(plan.id, () => this.run(plan));
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
    let stopped = false;
    let lost = false;
    /** The failed analysis that stopped the plan: its message is the plan's error. */
    let analysisFailure: string | null = null;
    const stillWanted = async () => {
      const row = (await this.repo.findById(plan.id))!;
      // another replica took the plan over (this one could not renew its lease): it goes on from here
      if (row.owner !== this.owner) lost = true;
      return !lost && !row.cancelRequested;
    };
    const pulls = new PlanPulls();
    if (plan.pullImage) pulls.prefetch(this.s, plan, steps);
    /** Runs the steps given (those left to run), `width` at once; false when the plan must stop. */
    const runSteps = async (group: PlanStepRow[], width: number) => {
      // a step left running is one a stopped process was in the middle of (resume)
      const queue = group.filter((x) => x.status === 'pending' || x.status === 'running');
      const worker = async () => {
        for (let st = queue.shift(); st; st = queue.shift()) {
          // rolling stops at the first failure; parallel lets started steps finish but starts no more
          if (failed || stopped) return;
          if (!(await stillWanted())) { stopped = true; return; }
          const result = st.action === 'remove' ? await runRemoveStep(this.s, this.steps, plan, st, stillWanted)
            : await runDeployStep(this.s, this.steps, plan, st, stillWanted, plan.pullImage ? pulls : undefined);
          if (result === 'failed') failed = true;
          if (result === 'cancelled') stopped = true;
        }
      };
      await Promise.all(Array.from({ length: Math.min(width, queue.length) }, worker));
      return !failed && !stopped;
    };
    for (const stage of stages) {
      const group = steps.filter((x) => x.stage === stage);
      const waves = (plan.waves ?? []).filter((w) => w.stage === stage);
      if (!waves.length || group.every((x) => x.wave === null)) {
        if (!(await runSteps(group, plan.strategy === 'parallel' ? PARALLELISM : 1))) break;
        continue;
      }
      for (const wave of waves) {
        const outcome = await this.runWave(plan, wave, group, runSteps, stillWanted);
        if (outcome === 'stopped') stopped = true;
        else if (outcome === 'released') lost = true;
        else if (outcome === 'failed') failed = true;
        else if (outcome !== 'go') { failed = true; analysisFailure = outcome.failure; }
        if (failed || stopped || lost) break;
      }
      if (failed || stopped || lost) break;
    }
    if (lost) return;
    const fresh = (await this.repo.findById(plan.id))!;
    // a step a stopped process left running, not run again because the plan was superseded (or
    // cancelled) before its takeover got to it, ends with the plan: a finished plan never holds a
    // running step, nor ends succeeded for a rollout it did not finish (found by bench/chaos.ts)
    if (fresh.cancelRequested) {
      const why = fresh.supersededBy ? `superseded by plan ${fresh.supersededBy}, which converges this container` : 'the plan was cancelled';
      for (const ended of await this.steps.cancelRunning(plan.id, `not run again: ${why}`)) await stepEvent(this.s, plan, ended);
    }
    await this.steps.endPending(plan.id, fresh.cancelRequested ? 'cancelled' : 'skipped');
    let all = await this.steps.ofPlan(plan.id);
    // a superseded plan never rolls back: a newer plan owns these services now
    if (failed && plan.autoRollback && !fresh.supersededBy) {
      const cause = analysisFailure ?? await failureSummary(this.s, all);
      const rolling = await this.repo.transition(plan.id, ['running'], { status: 'rolling_back', error: `${cause}; rolling back` });
      if (rolling) {
        await planEvent(this.s, rolling);
        return this.rollBackSteps(rolling);
      }
    }
    const outcome = analysisFailure ? 'failed' : outcomeOf(all, fresh.cancelRequested);
    const error = outcome === 'cancelled' && fresh.supersededBy ? `superseded by plan ${fresh.supersededBy}`
      : outcome === 'cancelled' ? 'cancelled' : analysisFailure ?? (failed ? await failureSummary(this.s, all) : null);
    all = await this.steps.ofPlan(plan.id);
    await this.finish(plan.id, 'running', outcome, error);
    if (outcome === 'succeeded') await this.recordImageTags(all);
  }

  /**
   * One wave: its steps (`width` at once), then the analysis of every container of the service
   * this plan has put on the new version so far, then its pause (pauseSec, until promoted, or an
   * operator's pause). Each phase is persisted before it starts (plan.waveState), so a plan taken
   * over resumes the wave where it was: a wave already past is skipped, an analysis starts again
   * from its beginning, a pause keeps its deadline. 'go' when the plan goes on.
   */
  private async runWave(plan: DeploymentPlanRow, wave: PlanWave, group: PlanStepRow[],
    runSteps: (g: PlanStepRow[], width: number) => Promise<boolean>, stillWanted: () => Promise<boolean>)
    : Promise<'go' | 'stopped' | 'released' | 'failed' | { failure: string }> {
    const at = (await this.repo.findById(plan.id))!.waveState;
    if (at && at.wave > wave.index) return 'go';
    const resumed = at?.wave === wave.index ? at : null;
    const mine = group.filter((x) => x.wave === wave.index);
    if (!resumed || resumed.phase === 'deploying') {
      if (!resumed) {
        const row = await this.setPhase(plan.id, wave.index, 'deploying');
        if (!row) return 'stopped';
        await waveStartedEvent(this.s, row, wave, mine);
      }
      if (!(await runSteps(mine, wave.width))) return (await stillWanted()) ? 'failed' : 'stopped';
    }
    if (wave.analysis && resumed?.phase !== 'paused') {
      if (!(await this.setPhase(plan.id, wave.index, 'analysing'))) return 'stopped';
      const targets = await this.analysisTargets(plan.id, wave);
      const records = () => this.repo.findById(plan.id).then((p) => p!.analysis ?? []);
      // an analysis a stopped process left running starts again from its beginning: its record goes
      const wanted = async () => !this.stopping && stillWanted();
      const result = await runAnalysis(this.s, wave.index, wave.analysis, targets, wanted, async (r) => {
        const list = (await records()).filter((x) => !(x.wave === r.wave && (x.startedAt === r.startedAt || x.verdict === 'running')));
        await this.repo.setAnalysis(plan.id, this.owner, [...list, r]);
        const row = await this.repo.findById(plan.id);
        if (row) await planEvent(this.s, row);
      });
      if (result === 'stopped') return this.stopping ? 'released' : 'stopped';
      if (result.failure) {
        const message = `analysis after wave ${wave.index + 1} failed: ${result.failure.message}`;
        await analysisFailedEvent(this.s, plan, wave, result);
        return { failure: message };
      }
    }
    return this.pauseAfter(plan, wave, resumed?.phase === 'paused' ? resumed : null, stillWanted);
  }

  /** The pause after a wave, if any: its own (pauseSec, pause: true) or an operator's. */
  private async pauseAfter(plan: DeploymentPlanRow, wave: PlanWave, resumed: WaveState | null, stillWanted: () => Promise<boolean>)
    : Promise<'go' | 'stopped' | 'released'> {
    const isLast = wave.index === (plan.waves ?? []).length - 1;
    let row = (await this.repo.findById(plan.id))!;
    const operator = row.pauseRequested && !isLast;
    if (!wave.pause && !wave.pauseSec && !operator && !resumed) return 'go';
    const until = resumed ? resumed.pauseUntil : wave.pauseSec ? new Date(Date.now() + wave.pauseSec * 1000).toISOString() : null;
    if (!resumed || resumed.pausedBy !== (operator ? 'operator' : 'rollout')) {
      const set = await this.setPhase(plan.id, wave.index, 'paused', { pauseUntil: until, pausedBy: operator ? 'operator' : 'rollout' });
      if (!set) return 'stopped';
    }
    for (;;) {
      // this process stops: the pause is kept in the store, and the next process waits on
      if (this.stopping) return 'released';
      if (!(await stillWanted())) return 'stopped';
      row = (await this.repo.findById(plan.id))!;
      if (row.promotedWave !== null && row.promotedWave >= wave.index) return 'go';
      if (!row.pauseRequested) {
        // the rollout's own pause: timed, or until promoted (a resumed operator pause of a wave without one goes on)
        if (!wave.pause && (!until || Date.now() >= new Date(until).getTime())) return 'go';
      }
      await new Promise((r) => setTimeout(r, PAUSE_POLL_MS));
    }
  }

  /** Writes the plan's wave and phase (only while this process holds it) and tells SSE clients. */
  private async setPhase(planId: string, wave: number, phase: WavePhase, extra: Partial<WaveState> = {}): Promise<DeploymentPlanRow | undefined> {
    const row = await this.repo.setWaveState(planId, this.owner, {
      wave, phase, since: new Date().toISOString(), pauseUntil: null, pausedBy: null, ...extra,
    });
    if (row) await planEvent(this.s, row);
    return row;
  }

  /** The containers an analysis watches: every deploy step of the service this plan has put on the new version so far. */
  private async analysisTargets(planId: string, wave: PlanWave): Promise<AnalysisTarget[]> {
    const done = (await this.steps.ofPlan(planId)).filter((x) => x.serviceId === wave.serviceId && x.wave !== null && x.wave <= wave.index
      && x.status === 'succeeded' && x.serverId);
    const servers = new Map((await this.s.servers.findByIds(done.map((x) => x.serverId!))).map((x) => [x.id, x.name]));
    const perServer = new Map<string, number>();
    for (const x of done) perServer.set(x.serverId!, (perServer.get(x.serverId!) ?? 0) + 1);
    return done.map((x) => {
      const server = servers.get(x.serverId!) ?? x.serverId!;
      return { serverId: x.serverId!, containerName: x.containerName, label: perServer.get(x.serverId!)! > 1 ? `${x.containerName}@${server}` : server };
    });
  }

  /**
   * Rolls back every touched step, newest first; the plan ends rolled_back only if all came back.
   * An automatic rollback returns each service that has a last good revision to it, on every
   * deployment of the plan (its skipped steps too: see restoreLastGood); a manual one undoes the
   * plan's own steps.
   */
  async rollBackSteps(plan: DeploymentPlanRow, manual = false): Promise<void> {
    if (!manual) await this.olderPlansEnded(plan);
    const all = await this.steps.ofPlan(plan.id);
    const lastGood = manual ? new Map<string, number>() : await this.lastGoodRevisions(all);
    // newest stage first (dependents before what they depend on); within a stage, in parallel
    const todo = stepsToRollBack(all, new Set(lastGood.keys()));
    const results: boolean[] = [];
    for (const stage of [...new Set(todo.map((x) => x.stage))]) {
      const queue = todo.filter((x) => x.stage === stage);
      const worker = async () => {
        for (let st = queue.shift(); st; st = queue.shift()) results.push(await rollBackStep(this.s, this.steps, plan, st, manual, lastGood.get(st.serviceId ?? '') ?? null));
      };
      await Promise.all(Array.from({ length: Math.min(PARALLELISM, queue.length) }, worker));
    }
    const outcome = rollbackOutcome(results);
    const cause = (plan.error ?? '').replace(/; rolling back$/, '');
    const error = manual ? (outcome === 'rollback_failed' ? 'some deployments could not be rolled back' : null)
      : `${cause || 'rolled back'}${outcome === 'rolled_back' ? '; rolled back' : '; some deployments could not be rolled back'}`;
    await this.finish(plan.id, 'rolling_back', outcome, error, !manual);
    if (manual && outcome === 'rolled_back') await restoreDesiredAfterRollback(this.s, await this.steps.ofPlan(plan.id));
  }

  /**
   * Waits (up to OLDER_PLANS_WAIT_MS) for the older plans of the same services to end. This plan
   * superseded them, but each finishes the step it is in, on another server: its end may make its
   * revision the last good one, and a rollback that read the last good revision before would put
   * an older one back over it (found by bench/chaos.ts: the service then said it ran r12 while its
   * containers ran r11).
   */
  private async olderPlansEnded(plan: DeploymentPlanRow): Promise<void> {
    const deadline = Date.now() + OLDER_PLANS_WAIT_MS;
    for (;;) {
      const older = await this.repo.otherActiveSharingServices(plan.id, { olderThan: plan.createdAt });
      if (!older) return;
      if (this.stopping || Date.now() > deadline) {
        this.s.logger.warn('rolling back while an older plan of the same services still runs', { planId: plan.id, olderPlanId: older.id });
        return;
      }
      await new Promise((r) => setTimeout(r, PAUSE_POLL_MS));
    }
  }

  /** The last good revision (currentRevision) of each service of the steps that has one. */
  private async lastGoodRevisions(steps: PlanStepRow[]): Promise<Map<string, number>> {
    const ids = [...new Set(steps.flatMap((x) => (x.serviceId ? [x.serviceId] : [])))];
    const rows = await this.s.services.listByIds(ids);
    return new Map(rows.flatMap((r) => (r.currentRevision != null ? [[r.id, r.currentRevision] as const] : [])));
  }

  /**
   * `rollout`: the plan's end is its revisions' outcome (a manual rollback's is what it restored).
   * The outcome and the services' status are written before the plan turns terminal: whoever
   * waits for the plan's end reads them final.
   */
  private async finish(planId: string, from: PlanStatus, to: PlanStatus, error: string | null, rollout = true): Promise<void> {
    const steps = await this.steps.ofPlan(planId);
    const plan = (await this.repo.findById(planId))!;
    if (plan.status !== from) return;
    if (rollout) await recordPlanOutcome(this.s, { ...plan, status: to, error }, steps);
    await this.refreshServices(steps, planId);
    const done = await this.repo.transition(planId, [from], { status: to, finishedAt: new Date(), error });
    if (!done) return;
    this.s.metrics.plans.inc({ outcome: to, trigger: done.trigger });
    if (done.startedAt) this.s.metrics.planDuration.observe({ outcome: to }, (Date.now() - new Date(done.startedAt).getTime()) / 1000);
    await this.countPerService(done, steps, to);
    await planEvent(this.s, done);
    await outcomeEvent(this.s, done, steps);
  }

  /** /metrics per service: the plan's duration for each service it deployed, and heals by outcome. */
  private async countPerService(done: DeploymentPlanRow, steps: PlanStepRow[], outcome: PlanStatus): Promise<void> {
    if (!this.s.metrics.perService) return;
    const ids = [...new Set(steps.flatMap((x) => (x.serviceId ? [x.serviceId] : [])))];
    const names = await this.s.fleetSeries.namesOf(ids).catch(() => []);
    const seconds = done.startedAt ? (Date.now() - new Date(done.startedAt).getTime()) / 1000 : null;
    for (const n of names) {
      const labels = { environment: n.environment, service: n.service, outcome };
      if (seconds !== null) this.s.metrics.servicePlanDuration.observe(labels, seconds);
      if (done.trigger === 'drift-heal') this.s.metrics.serviceHeals.inc(labels);
    }
  }

  /** Progressing (and Ready, Degraded) of the plan's services follow its start and end. */
  private async refreshServices(steps: PlanStepRow[], ending?: string): Promise<void> {
    for (const id of new Set(steps.flatMap((x) => (x.serviceId ? [x.serviceId] : [])))) await refreshServiceConditions(this.s, id, ending);
  }

  /** The image's current tag follows a plan that succeeded (the desired tag was written before). */
  private async recordImageTags(steps: PlanStepRow[]): Promise<void> {
    for (const serviceId of new Set(steps.map((x) => x.serviceId).filter((x): x is string => !!x))) {
      const tag = steps.find((x) => x.serviceId === serviceId)!.imageTag!;
      const svc = await this.s.services.findById(serviceId);
      if (svc?.containerImageId) await this.s.containerImages.setCurrentTag(svc.containerImageId, tag);
    }
  }
}
