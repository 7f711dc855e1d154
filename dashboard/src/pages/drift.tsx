// What differs between the desired containers and what the servers run (asked live), and a heal
// button per drifted deployment: a deploy of its desired state through the one entrance.
import { useState } from 'preact/hooks';
import { get, listAll, post } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { PlanProgress } from '../components/plan-progress';
import { ErrorNote } from '../components/status';

export function DriftPage({ params }: { params: Record<string, string> }) {
  const { me } = useSession();
  const { envId } = params;
  const report = useLoad(async (signal) => {
    const [drift, servers, services] = await Promise.all([
      get(`/api/environments/${envId}/drift`, signal),
      listAll(`/api/environments/${envId}/servers`, signal),
      listAll(`/api/environments/${envId}/services`, signal),
    ]);
    return { drift, serverName: new Map(servers.map((s: any) => [s.id, s.name])), serviceName: new Map(services.map((s: any) => [s.id, s.name])) };
  }, [envId]);
  const [planId, setPlanId] = useState<string | null>(null);
  const heal = useAction();
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (e.type === 'drift.changed' || (e.type === 'plan.updated' && ['succeeded', 'failed', 'rolled_back'].includes(e.data.status))) report.reload(); });
  if (report.error) return <ErrorNote error={report.error} />;
  if (!report.data) return <p role="status">Asking the servers…</p>;
  const { drift, serverName, serviceName } = report.data;
  const items = drift.items as any[];
  return (
    <div>
      <p aria-live="polite" class="lead">
        <span data-testid="drift-summary">{drift.drifted} drifted, {drift.unreachable} unreachable, {drift.degraded} degraded</span> of {items.length} deployments.
        Drift policy: <code>{drift.driftPolicy}</code>. <button type="button" class="link" onClick={report.reload}>Check again</button>
      </p>
      <table>
        <thead><tr><th scope="col">Container</th><th scope="col">Service</th><th scope="col">Server</th><th scope="col">Desired / running</th><th scope="col">Differences</th>{can(me, 'operator') && <th scope="col">Heal</th>}</tr></thead>
        <tbody>
          {items.map((i) => (
            <tr data-deployment={i.containerName} data-drifted={String(i.drifted)}>
              <th scope="row">{i.containerName}</th><td>{serviceName.get(i.serviceId) ?? i.serviceId}</td><td>{serverName.get(i.serverId) ?? i.serverId}</td>
              <td><code>{i.desiredImageTag ?? '—'}</code> / <code>{i.runningImageTag ?? '—'}</code></td>
              <td>
                {i.drifted === null ? <span class="badge muted">unreachable: {i.error}</span>
                  : i.drifted ? <ul class="plain">{i.actions.map((a: any) => <li><span class="badge warn">{a.reason}</span> {a.message}</li>)}</ul>
                    : <span class="badge good">in sync</span>}
                {i.statusNote && <p class="reason" data-testid="status-note">{i.statusNote}</p>}
                {i.degraded && <p class="error">{i.degraded.reason}: {i.degraded.message}</p>}
                {i.revisionNote && <p class="reason" data-testid="revision-note">{i.revisionNote}</p>}
              </td>
              {can(me, 'operator') && (
                <td>{i.drifted && (
                  <button type="button" disabled={heal.busy} onClick={() => heal.run(async () => {
                    setPlanId((await post(`/api/services/${i.serviceId}/deployments/${i.deploymentId}/heal`, {})).id);
                  })}>Heal<span class="sr-only"> {i.containerName}</span></button>
                )}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNote error={heal.error} />
      {planId && <PlanProgress key={planId} planId={planId} />}
    </div>
  );
}
