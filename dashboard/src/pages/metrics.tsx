// The environment's servers' CPU and memory as charts over a time range (components/metrics.tsx).
import { listAll } from '../api';
import { useLoad } from '../hooks';
import { ServerCharts } from '../components/metrics';
import { ErrorNote } from '../components/status';

export function MetricsPage({ params }: { params: Record<string, string> }) {
  const servers = useLoad((signal) => listAll(`/api/environments/${params.envId}/servers`, signal), [params.envId]);
  if (servers.error) return <ErrorNote error={servers.error} />;
  if (!servers.data) return <p role="status">Loading…</p>;
  if (!servers.data.length) return <p>No server in this environment.</p>;
  const off = servers.data.filter((s: any) => s.metricsMode === 'disabled');
  return (
    <>
      {off.length > 0 && <p class="reason">Metrics are not collected from {off.map((s: any) => s.name).join(', ')} (metrics mode disabled: edit the server to collect them).</p>}
      <ServerCharts envId={params.envId} servers={servers.data} />
    </>
  );
}
