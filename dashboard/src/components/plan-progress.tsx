// A deployment plan followed live over its SSE stream: every event re-reads the plan, so what is
// shown is what the store holds (steps, their logs and errors), never a guess from the event.
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { useAction, useEvents } from '../hooks';
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
  if (!plan) return <p role="status">Loading the plan…</p>;
  const active = ACTIVE.includes(plan.status);
  return (
    <section class="plan" aria-labelledby={`plan-${planId}`} data-plan={planId}>
      <h3 id={`plan-${planId}`}>Plan {plan.name} <PlanStatus status={plan.status} /></h3>
      <p class="reason" aria-live="polite">
        {active ? 'In progress…' : `Finished ${when(plan.finishedAt)}.`}
        {plan.error && <span class="plan-error"> {plan.error}</span>}
      </p>
      <ol class="steps">
        {(plan.steps ?? []).map((st: any) => (
          <li data-step-status={st.status}>
            <span class="step-head">
              <strong>{st.action}</strong> {st.containerName} <code>{st.previousImageTag ?? '—'} → {st.imageTag ?? '—'}</code>{' '}
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
          {active && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/cancel`)))}>Cancel plan</button>}
          {!active && plan.status !== 'rolled_back' && <button type="button" disabled={action.busy} onClick={() => action.run(async () => setPlan(await post(`/api/deployment-plans/${planId}/rollback`)))}>Roll back</button>}
        </div>
      )}
      <ErrorNote error={action.error} />
    </section>
  );
}
