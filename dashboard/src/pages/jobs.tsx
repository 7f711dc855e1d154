// An environment's scheduled jobs (docs/jobs.md): the kind's table and forms (kinds.tsx), with
// Run now for operators, and below it the runs of one job, newest first: when it was due, how it
// was started, its status with the reason (skipped, missed, failed), exit code, duration and the
// tail of its output. Read again every two seconds while a run of it is pending or running.
import { useEffect, useState } from 'preact/hooks';
import { get, listAll } from '../api';
import { useLoad } from '../hooks';
import { KIND_VIEWS, type KindView } from '../kinds';
import { ErrorNote, when } from '../components/status';
import { Resources } from './resources';

const view = KIND_VIEWS.find((v) => v.key === 'jobs') as KindView;
const TONE: Record<string, string> = { succeeded: 'good', failed: 'bad', missed: 'warn', running: 'info', pending: 'info' };
const duration = (ms: number | null) => (ms === null ? '—' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function JobsPage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const jobs = useLoad((signal) => listAll(`/api/environments/${envId}/jobs`, signal), [envId]);
  const [chosen, setChosen] = useState<string | null>(null);
  const list = (jobs.data ?? []) as any[];
  const job = list.find((j) => j.id === chosen) ?? list[0];
  return (
    <div>
      <Resources key={envId} view={view} envId={envId} onChanged={jobs.reload} />
      <ErrorNote error={jobs.error} />
      {job && (
        <section aria-labelledby="job-runs-h">
          <h2 id="job-runs-h">Runs</h2>
          {list.length > 1 && (
            <label>Job <select value={job.id} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
              {list.map((j) => <option value={j.id}>{j.name}</option>)}
            </select></label>
          )}
          <JobRuns key={job.id} job={job} />
        </section>
      )}
    </div>
  );
}

function JobRuns({ job }: { job: any }) {
  const runs = useLoad((signal) => get(`/api/jobs/${job.id}/runs?limit=50`, signal), [job.id]);
  const items = (runs.data?.items ?? []) as any[];
  const live = items.some((r) => r.status === 'running' || r.status === 'pending');
  // a run's end has no event of its own (only a failure raises job.failed): look again while one runs,
  // and every few seconds for the next occurrence
  useEffect(() => {
    const t = setInterval(runs.reload, live ? 2000 : 10_000);
    return () => clearInterval(t);
  }, [live, runs.reload]);
  if (runs.error) return <ErrorNote error={runs.error} />;
  if (!runs.data) return <p role="status">Loading…</p>;
  if (!items.length) return <p data-empty="job-runs">No run of {job.name} yet{job.enabled && job.nextRunAt ? `: the next is due ${when(job.nextRunAt)}` : ''}.</p>;
  return (
    <table class="stack" data-job={job.name}>
      <thead><tr><th scope="col">Due</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Exit code</th><th scope="col">Duration</th><th scope="col">Output</th></tr></thead>
      <tbody>
        {items.map((r) => (
          <tr data-run={r.id} data-status={r.status}>
            <th scope="row" data-label="Due">{when(r.scheduledAt)}</th>
            <td data-label="Trigger">{r.trigger === 'manual' ? `by ${r.createdBy ?? 'someone'}` : 'schedule'}</td>
            <td data-label="Status"><span class={`badge ${TONE[r.status] ?? ''}`}>{r.status}</span>{r.reason && <p class="reason">{r.reason}</p>}</td>
            <td data-label="Exit code">{r.exitCode ?? '—'}</td>
            <td data-label="Duration">{duration(r.durationMs)}</td>
            <td data-label="Output">{r.logTail ? <pre>{r.logTail}</pre> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
