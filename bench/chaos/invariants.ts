// The chaos harness's invariants, checked after every step and at the end. Each keeps whether it
// held all along and, once broken, the evidence (what was seen, at which step). The decisions are
// the pure functions of verdicts.ts; this file reads the world they judge: the answers recorded,
// the store (through the host list), the servers (docker, through the fleet's own access, not the
// controller's SSH), the SSE clients and the replicas' logs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverExec } from '../../test/fleet/fleet.js';
import { STREAM_TYPES } from '../../test/e2e/chaos/controller-child.js';
import type { ChaosWorld, Ref } from './world.js';
import { brokenAnswers, overduePlans, unexplainedUnavailable, revisionTarget, TERMINAL_PLAN, touched, type Observed, type PlanRow, type ServiceStatus } from './verdicts.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const INVARIANTS = {
  answers: 'the API answers only 2xx, 4xx or 503; no connection dropped but by its replica\'s own kill',
  unavailable: 'the API says 503 "database not reachable" only while PostgreSQL is away (a database fault, until its recovery)',
  plans: 'no plan stays unfinished past its deadline, nor ends with a step unfinished',
  revisions: 'every service runs its desired revision, or its last good one with the failure in its status',
  untouched: 'no container of another environment nor a hand-made one was touched',
  events: 'every event reached each SSE client (reconnecting with Last-Event-ID), once',
  secrets: 'no secret value in any replica\'s log',
  memory: 'controller RSS stays under the bound',
  recovery: 'the system recovers from every fault within the limit',
  unhandled: 'no unhandled promise rejection in any replica',
} as const;
export type InvariantName = keyof typeof INVARIANTS;

export interface InvariantState { name: InvariantName; description: string; held: boolean; evidence: string[]; checks: number }

export interface Limits {
  /** How long a plan may run past the later of its creation and the last fault's end. */
  planBudgetMs: number;
  /** The RSS bound of each replica. */
  rssBoundMiB: number;
  /** How long the system may take to recover from a fault. */
  recoveryLimitMs: number;
}

export class Invariants {
  readonly states = new Map<InvariantName, InvariantState>(
    (Object.keys(INVARIANTS) as InvariantName[]).map((name) => [name, { name, description: INVARIANTS[name], held: true, evidence: [], checks: 0 }]),
  );
  private judged = 0;
  private judgedUnavailable = 0;
  /** Plans already reported for a step left unfinished (each once). */
  private readonly reportedSteps = new Set<string>();
  /** [from, to] of every database fault: from its injection to its recovery (or the give-up). */
  readonly databaseAway: Array<[number, number]> = [];
  private baseline = new Map<string, Observed>();
  /** A dropped connection excused by its replica's own kill. */
  excusedDrops = 0;

  /** `log`: where a broken invariant's history goes (the store's record of what led there). */
  constructor(private readonly w: ChaosWorld, readonly limits: Limits, private readonly log: (line: string) => void = () => undefined) {}

  /** Records one check of the invariant: held, or broken with the evidence (kept to 20 lines each). */
  note(name: InvariantName, step: string, problems: string[]): void {
    const s = this.states.get(name)!;
    s.checks++;
    if (problems.length === 0) return;
    s.held = false;
    for (const p of problems) if (s.evidence.length < 20) s.evidence.push(`${step}: ${p}`);
  }

  get broken(): InvariantState[] {
    return [...this.states.values()].filter((s) => !s.held);
  }

  /** Baselines what no plan may touch (ids, start times, the dockerd that started them). */
  async baselineUntouchable(): Promise<void> {
    for (const u of this.w.untouchable) {
      const seen = await this.observe(u.server, u.name);
      if (!seen) throw new Error(`${u.name} is not on ${u.server}`);
      this.baseline.set(`${u.server}/${u.name}`, seen);
    }
  }

  /** Every check, after the workload was paused and the plans have ended (or ran out of time). */
  async checkAll(step: string, lastRestoredAt: number): Promise<void> {
    this.checkAnswers(step);
    this.checkUnavailable(step);
    await this.checkPlans(step, lastRestoredAt);
    await this.checkRevisions(step);
    await this.checkUntouched(step);
    await this.checkEvents(step);
    this.checkSecrets(step);
    this.checkMemory(step);
    this.checkUnhandled(step);
  }

  checkAnswers(step: string): void {
    const fresh = this.w.answers.suspects.slice(this.judged);
    this.judged = this.w.answers.suspects.length;
    const replica = (name: string) => this.w.replicas.find((r) => r.name === name)!;
    const broken = brokenAnswers(fresh, (name, from, to) => replica(name).wasDownDuring(from, to));
    this.excusedDrops += fresh.length - broken.length;
    this.note('answers', step, broken.map((s) => `${s.method} ${s.path} on replica ${s.replica} → ${s.status || 'no answer'} after ${s.ended - s.started} ms: ${s.text.replace(/\s+/g, ' ').slice(0, 200)}`));
  }

  checkUnavailable(step: string): void {
    const fresh = this.w.answers.databaseAway.slice(this.judgedUnavailable);
    this.judgedUnavailable = this.w.answers.databaseAway.length;
    this.note('unavailable', step, unexplainedUnavailable(fresh, this.databaseAway, 5000)
      .map((s) => `${s.method} ${s.path} on replica ${s.replica} → 503 at ${new Date(s.started).toISOString()} with no database fault in place`));
  }

  /** Waits for every plan to end; one still going past its deadline breaks the invariant. */
  async checkPlans(step: string, lastRestoredAt: number): Promise<void> {
    // a Git push's sync asked for turns into its plan only when a pass takes the source: wait for
    // the pass first (generation observed), or the plans would be judged before the push's exists
    const deadline = Math.max(Date.now() + 60_000, lastRestoredAt + this.limits.planBudgetMs);
    for (let st: Record<string, unknown> | null = null; ;) {
      const api = this.w.api(this.w.replicas.find((r) => r.running) ?? this.w.replicas[0]!);
      const res = await api.get(`/api/environments/${this.w.envs.git.id}/manifests-source/status`);
      st = res.status === 200 ? res.body : st;
      // (a pass writes observedGeneration last, after the plans of what it applied exist)
      if (st && st.generation === st.observedGeneration) break;
      if (Date.now() > deadline) {
        return this.note('plans', step, [`the Git source's sync asked for never ended: ${JSON.stringify(st).slice(0, 300)}`]);
      }
      await sleep(500);
    }
    for (;;) {
      const open = (await this.w.db('deployment_plans').whereNotIn('status', TERMINAL_PLAN).select('id', 'name', 'status', 'createdAt')) as PlanRow[];
      if (open.length === 0) {
        // and a finished plan holds no step still pending or running (asked twice, 5 s apart: a
        // plan's end and its steps' are two writes, which a reader may see between)
        const unfinished = () => this.w.db('plan_steps').join('deployment_plans', 'deployment_plans.id', 'plan_steps.planId')
          .whereIn('plan_steps.status', ['pending', 'running']).whereIn('deployment_plans.status', TERMINAL_PLAN)
          .whereNotIn('plan_steps.planId', [...this.reportedSteps])
          .select('plan_steps.id', 'plan_steps.planId', 'plan_steps.status as stepStatus', 'deployment_plans.name', 'deployment_plans.status as planStatus');
        let left = await unfinished();
        if (left.length) {
          await sleep(5000);
          const still = new Set((await unfinished()).map((r) => r.id));
          left = left.filter((r) => still.has(r.id));
        }
        for (const r of left) this.reportedSteps.add(r.planId);
        return this.note('plans', step, left.map((r) => `plan ${r.planId} "${r.name}" ended ${r.planStatus} with a step still ${r.stepStatus}`));
      }
      const overdue = overduePlans(open, Date.now(), lastRestoredAt, this.limits.planBudgetMs);
      if (overdue.length) {
        const problems: string[] = [];
        for (const p of overdue) {
          const steps = await this.w.db('plan_steps').where({ planId: p.id }).select('status', 'error');
          problems.push(`plan ${p.id} "${p.name}" still ${p.status} ${Math.round((Date.now() - new Date(p.createdAt).getTime()) / 1000)} s after its creation; steps: ${steps.map((s) => `${s.status}${s.error ? ` (${String(s.error).slice(0, 120)})` : ''}`).join(', ')}`);
        }
        return this.note('plans', step, problems);
      }
      await sleep(500);
    }
  }

  async checkRevisions(step: string): Promise<void> {
    const problems: string[] = [];
    const api = this.w.api(this.w.replicas.find((r) => r.running) ?? this.w.replicas[0]!);
    for (const ref of Object.values(this.w.services) as Ref[]) {
      const res = await api.get(`/api/services/${ref.id}`);
      if (res.status !== 200) {
        problems.push(`${ref.name}: GET answered ${res.status}`);
        continue;
      }
      const svc = res.body as ServiceStatus & { deployments: Array<{ id: string; containerName: string; revision: number | null }> };
      const { target, problem } = revisionTarget({ ...svc, name: ref.name });
      if (problem) problems.push(problem);
      if (target === null) continue;
      const rev = await api.get(`/api/services/${ref.id}/revisions/${target}`);
      if (rev.status !== 200) {
        problems.push(`${ref.name}: revision r${target} answered ${rev.status}`);
        continue;
      }
      const wanted = rev.body.spec.deployments as Array<{ deploymentId: string; serverName: string; containerName: string; specHash: string }>;
      const before = problems.length;
      for (const d of svc.deployments) {
        const spec = wanted.find((x) => x.deploymentId === d.id);
        if (d.revision !== target) problems.push(`${ref.name}/${d.containerName}: status says it runs r${d.revision ?? '-'}, the service must run r${target}`);
        if (!spec) {
          problems.push(`${ref.name}/${d.containerName}: not in revision r${target}`);
          continue;
        }
        const out = (await serverExec(spec.serverName, ['docker', 'inspect', '--format', '{{.State.Running}} {{index .Config.Labels "stevedore.spec-hash"}}', spec.containerName]).catch((e) => `missing ${String(e).split('\n')[0]}`)).trim();
        if (out !== `true ${spec.specHash}`) problems.push(`${ref.name}/${spec.containerName} on ${spec.serverName}: runs "${out}", r${target} is "true ${spec.specHash}"`);
      }
      if (problems.length > before || problem) this.log(`${step}: ${ref.name} broke revisions; its history in the store:\n${await this.history(ref.id)}`);
    }
    this.note('revisions', step, problems);
  }

  /** A service's revisions, deployments and last plans as the store holds them: what led to a broken revision. */
  async history(serviceId: string): Promise<string> {
    const db = this.w.db;
    const short = (id: unknown) => String(id ?? '-').slice(0, 8);
    const at = (t: unknown) => (t ? new Date(t as string).toISOString().slice(11, 23) : '-');
    const [svc] = await db('services').where({ id: serviceId }).select('desiredRevision', 'currentRevision', 'failedRevision', 'failedReason', 'generation');
    const lines = [`  service: desired r${svc?.desiredRevision} current r${svc?.currentRevision} failed r${svc?.failedRevision ?? '-'} (${svc?.failedReason ?? ''}) generation ${svc?.generation}`];
    for (const r of await db('service_revisions').where({ serviceId }).orderBy('revision').select('revision', 'outcome', 'source', 'planId', 'reason', 'specHash', 'createdAt')) {
      lines.push(`  r${r.revision} ${r.outcome} ${r.source} plan ${short(r.planId)} hash ${String(r.specHash).slice(0, 8)} at ${at(r.createdAt)} ${r.reason ?? ''}`);
    }
    for (const d of await db('deployments').where({ serviceId }).select('id', 'containerName', 'revision', 'imageTag', 'generation', 'failedGeneration', 'status')) {
      lines.push(`  deployment ${short(d.id)} ${d.containerName}: r${d.revision} ${d.imageTag} generation ${d.generation} failed ${d.failedGeneration ?? '-'} ${d.status}`);
    }
    const plans = await db('deployment_plans').whereIn('id', db('plan_steps').where({ serviceId }).select('planId'))
      .orderBy('createdAt', 'desc').limit(10).select('id', 'name', 'trigger', 'status', 'error', 'owner', 'supersededBy', 'createdAt', 'finishedAt');
    for (const p of plans.reverse()) {
      lines.push(`  plan ${short(p.id)} "${p.name}" ${p.trigger} ${p.status} ${at(p.createdAt)}→${at(p.finishedAt)} owner ${short(p.owner)}${p.supersededBy ? ` superseded by ${short(p.supersededBy)}` : ''} ${p.error ?? ''}`);
      for (const st of await db('plan_steps').where({ planId: p.id }).orderBy('position')
        .select('deploymentId', 'action', 'status', 'revision', 'previousRevision', 'error', 'rollbackError', 'log', 'startedAt', 'finishedAt')) {
        lines.push(`    step ${short(st.deploymentId)} ${st.action} ${st.status} r${st.revision ?? '-'} (prev r${st.previousRevision ?? '-'}) ${at(st.startedAt)}→${at(st.finishedAt)}${st.error ? ` error: ${String(st.error).slice(0, 200)}` : ''}${st.rollbackError ? ` rollback: ${String(st.rollbackError).slice(0, 200)}` : ''}`);
        const tail = String(st.log ?? '').trim().split('\n').slice(-4).join(' | ');
        if (tail) lines.push(`      log: ${tail.slice(-400)}`);
      }
    }
    return lines.join('\n');
  }

  async checkUntouched(step: string): Promise<void> {
    const problems: string[] = [];
    for (const u of this.w.untouchable) {
      const key = `${u.server}/${u.name}`;
      const before = this.baseline.get(key)!;
      // a container whose dockerd was restarted comes back by its restart policy: give it the time
      let now = await this.observe(u.server, u.name);
      for (let i = 0; i < 60 && now && !now.running && now.dockerd !== before.dockerd; i++) {
        await sleep(500);
        now = await this.observe(u.server, u.name);
      }
      const verdict = touched(before, now);
      if (verdict) problems.push(`${u.name} on ${u.server} (${u.why}): ${verdict}`);
      else this.baseline.set(key, now!);
    }
    this.note('untouched', step, problems);
  }

  async checkEvents(step: string): Promise<void> {
    const wanted = (await this.w.db('events').where('id', '>', this.w.firstEventId).whereIn('type', STREAM_TYPES).select('id')).map((r) => Number(r.id));
    const problems: string[] = [];
    for (const [i, client] of this.w.sse.entries()) {
      const name = this.w.replicas[i]!.name;
      let missing: number[] = [];
      for (let t = 0; t < 60; t++) {
        const seen = new Set(client.ids);
        missing = wanted.filter((id) => !seen.has(id));
        if (missing.length === 0) break;
        await sleep(500);
      }
      if (missing.length) problems.push(`the client of replica ${name} missed ${missing.length} of ${wanted.length} events: ${missing.slice(0, 10).join(', ')}`);
      const twice = client.ids.length - new Set(client.ids).size;
      if (twice) problems.push(`the client of replica ${name} got ${twice} events twice`);
    }
    this.note('events', step, problems);
  }

  checkSecrets(step: string): void {
    const problems: string[] = [];
    for (const r of this.w.replicas) {
      for (const secret of this.w.secrets) {
        const at = r.controller.log.indexOf(secret);
        if (at >= 0) problems.push(`replica ${r.name}'s log holds a secret (${secret.slice(0, 6)}…): "${r.controller.log.slice(Math.max(0, at - 80), at).replace(/\s+/g, ' ')}<secret>"`);
      }
    }
    this.note('secrets', step, problems);
  }

  checkMemory(step: string): void {
    this.note('memory', step, this.w.replicas.filter((r) => r.peakRssMiB > this.limits.rssBoundMiB)
      .map((r) => `replica ${r.name} peaked at ${r.peakRssMiB} MiB (bound ${this.limits.rssBoundMiB} MiB)`));
  }

  checkUnhandled(step: string): void {
    this.note('unhandled', step, this.w.replicas.flatMap((r) => r.controller.unhandled().map((l) => `replica ${r.name}: ${l.slice(0, 300)}`)));
  }

  private async observe(server: string, name: string): Promise<Observed | null> {
    const dockerd = readFileSync(join(this.w.fleet.root, server, 'dockerd.pid'), 'utf8').trim();
    try {
      const [id, running, startedAt] = (await serverExec(server, ['docker', 'inspect', '--format', '{{.Id}} {{.State.Running}} {{.State.StartedAt}}', name])).trim().split(' ');
      return { id: id!, running: running === 'true', startedAt: startedAt!, dockerd };
    } catch {
      return null;
    }
  }
}
