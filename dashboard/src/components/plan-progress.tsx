// A deployment plan followed live over its SSE stream: every event re-reads the plan, so what is
// shown is what the store holds (steps, their logs and errors), never a guess from the event.
import { useState } from 'preact/hooks';
import { get, listAll, post } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { ErrorNote, PlanStatus, when } from './status';

const ACTIVE = ['pending', 'running', 'rolling_back'];

export function PlanProgress({ planId, initial }: { planId: string; initial?: any }) {
  const { me } = useSession();
  const [plan, setPlan] = useState<any>(initial);
  const action = useAction();
  useEvents(`/api/deployment-plans/${planId}/events`, (e) => {
    if (e.type === 'plan.updated' && e.data.snapshot) setPlan(e.data);
    else get(`/api/deployment-plans/${planId}`).then(setPlan, () => undefined);
  });
  // steps and waves name servers by id: the environment's servers give their names
  const servers = useLoad(async (signal) => (plan?.environmentId
    ? new Map<string, string>((await listAll(`/api/environments/${plan.environmentId}/servers`, signal)).map((x: any) => [x.id, x.name]))
    : new Map<string, string>()), [plan?.environmentId]);
  if (!plan) return <p role="status">Loading the plan…</p>;
  const active = ACTIVE.includes(plan.status);
  const serverOf = (id: string | null) => (id ? servers.data?.get(id) ?? (servers.loading ? '…' : 'a removed server') : 'no server');
  return (
    <section class="plan" aria-labelledby={`plan-${planId}`} data-plan={planId}>
      <h3 id={`plan-${planId}`}>Plan {plan.name} <PlanStatus status={plan.status} /></h3>
      <p class="reason" aria-live="polite">
        {active ? 'In progress…' : `Finished ${when(plan.finishedAt)}.`}
        {plan.error && <span class="plan-error"> {plan.error}</span>}
      </p>
      {plan.waves && <Waves plan={plan} serverOf={serverOf} />}
      <ol class="steps">
        {(plan.steps ?? []).map((st: any) => (
          <li data-step-status={st.status} data-step-server={serverOf(st.serverId)}>
            <span class="step-head">
              <strong>{st.action}</strong> {st.containerName} on <strong data-server-name>{serverOf(st.serverId)}</strong>{' '}
              <code>{change(st)}</code>{' '}
              <PlanStatus status={st.status} />{st.durationMs != null && <span class="reason"> {(st.durationMs / 1000).toFixed(1)} s</span>}
            </span>
            {st.error && <p class="error">{st.error}</p>}
            {st.rollbackError && <p class="error">rollback: {st.rollbackError}</p>}
            {st.log && <details><summary>Log of step {st.position + 1}</summary><pre>{st.log}</pre></details>}
          </li>
        ))}
      </ol>
      {can(me, 'operator') && (
        <div class="actions">
          {plan.currentWave?.phase === 'paused' && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/promote`)))}>Promote</button>}
          {plan.status === 'running' && plan.waves && !plan.pauseRequested && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/pause`)))}>Pause</button>}
          {plan.status === 'running' && plan.pauseRequested && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/resume`)))}>Resume</button>}
          {active && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/cancel`)))}>Cancel plan</button>}
          {!active && plan.status !== 'rolled_back' && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/rollback`)))}>Roll back</button>}
        </div>
      )}
      <ErrorNote error={action.error} />
    </section>
  );
}

/** What the current wave does, in words: "analysing", "paused until promoted", "paused until 10:02:13". */
export function wavePhaseText(w: { phase: string; pauseUntil: string | null; pausedBy: string | null }): string {
  if (w.phase !== 'paused') return w.phase;
  if (w.pausedBy === 'operator') return 'paused by an operator until resumed or promoted';
  return w.pauseUntil ? `paused until ${new Date(w.pauseUntil).toLocaleTimeString()}` : 'paused until promoted';
}

/** What a step changes, in words: the tags (v1 → v2), and the revisions when the tag stays (a spec change). */
function change(st: any): string {
  const tags = st.imageTag || st.previousImageTag ? `${st.previousImageTag ?? 'nothing'} → ${st.imageTag ?? 'nothing'}` : '';
  const revisions = st.revision ? `${st.previousRevision ? `r${st.previousRevision}` : 'new'} → r${st.revision}` : '';
  if (st.action === 'remove') return `remove ${st.previousImageTag ?? st.imageTag ?? ''}`.trim();
  return [tags, revisions && `(${revisions})`].filter(Boolean).join(' ') || st.action;
}

/** The plan's waves: each one's servers, status and analysis result; the current one's phase. */
function Waves({ plan, serverOf }: { plan: any; serverOf(id: string | null): string }) {
  return (
    <div class="waves">
      {plan.currentWave && (
        <p class="reason" data-current-wave={plan.currentWave.index} aria-live="polite">
          Wave {plan.currentWave.index + 1} of {plan.currentWave.of}: <strong data-wave-phase={plan.currentWave.phase}>{wavePhaseText(plan.currentWave)}</strong>
          {plan.pauseRequested && plan.currentWave.phase !== 'paused' && ' (an operator pause is held for the next wave boundary)'}
        </p>
      )}
      <ol class="plain">
        {plan.waves.map((w: any) => (
          <li data-wave={w.index} data-wave-status={w.status}>
            Wave {w.index + 1}: {w.service} on {w.deployments.map((d: any) => `${serverOf(d.serverId)} (${d.containerName})`).join(', ') || `${w.size} server(s)`}{' '}
            <PlanStatus status={w.status} />
            {w.analysis && <span class="reason"> analysis {w.analysis.durationSec} s</span>}
            {w.pause && <span class="reason"> then pause until promoted</span>}
            {w.pauseSec && <span class="reason"> then pause {w.pauseSec} s</span>}
            {w.result?.verdict === 'passed' && <span class="reason"> — analysis passed ({w.result.checks.join('; ')})</span>}
            {w.result?.failure && <p class="error" data-analysis-failure>{w.result.failure.message}</p>}
          </li>
        ))}
      </ol>
    </div>
  );
}
