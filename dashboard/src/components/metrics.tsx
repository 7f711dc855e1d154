// Metrics as charts over a chosen time range: servers (CPU, memory) and a service's containers,
// read from the monitoring history routes and read again when the environment stores new samples
// (its metrics stream).
import { useState } from 'preact/hooks';
import { get } from '../api';
import { useEvents, useLoad } from '../hooks';
import { bytes, Chart, percent } from './chart';
import { ErrorNote } from './status';

const RANGES: Array<[string, number]> = [['15 minutes', 15], ['1 hour', 60], ['6 hours', 360], ['24 hours', 1440], ['7 days', 10_080]];

/** The range picker and the window it stands for. */
export function useRange(initial = 60) {
  const [minutes, setMinutes] = useState(initial);
  const picker = (id: string) => (
    <label class="range">Time range{' '}
      <select id={id} value={String(minutes)} onChange={(e) => setMinutes(Number((e.target as HTMLSelectElement).value))}>
        {RANGES.map(([label, m]) => <option value={String(m)}>{label}</option>)}
      </select>
    </label>
  );
  return { minutes, picker };
}

/**
 * The query of a range: its bounds and about 720 buckets across it (5 s in an hour). The API
 * answers only buckets that hold a sample, so a bucket shorter than the collection cadence
 * draws every sample, not their mean per minute.
 */
const span = (minutes: number) => {
  const to = new Date();
  const stepSec = Math.max(1, Math.round((minutes * 60) / 720));
  return `from=${new Date(to.getTime() - minutes * 60_000).toISOString()}&to=${to.toISOString()}&stepSec=${stepSec}`;
};

/** CPU and memory of each server of the environment. */
export function ServerCharts({ envId, servers }: { envId: string; servers: Array<{ id: string; name: string }> }) {
  const { minutes, picker } = useRange();
  const data = useLoad((signal) => Promise.all(servers.map((s) => get(`/api/environments/${envId}/metrics/history?serverId=${s.id}&${span(minutes)}`, signal))), [envId, minutes, servers.length]);
  useEvents(`/api/environments/${envId}/metrics/stream`, (e) => { if (e.type === 'metrics') data.reload(); });
  return (
    <div class="metrics">
      {picker('server-range')}
      <ErrorNote error={data.error} />
      {data.data && servers.map((s, i) => {
        const h = data.data![i];
        return (
          <section aria-labelledby={`srv-${s.id}`} class="chart-pair" data-server-metrics={s.name}>
            <h2 id={`srv-${s.id}`}>{s.name}</h2>
            <Chart id={`cpu-${s.id}`} title="CPU" timestamps={h.timestamps} series={[{ label: 'CPU', values: h.series.cpuPercent }]} format={percent} />
            <Chart id={`mem-${s.id}`} title="Memory" timestamps={h.timestamps} format={bytes}
              series={[{ label: 'used', values: h.series.memoryUsedBytes }, { label: 'total', values: h.series.memoryTotalBytes }]} />
          </section>
        );
      })}
    </div>
  );
}

/** CPU and memory of each container of a service, a line per container. */
export function ContainerCharts({ service }: { service: { id: string; environmentId: string } }) {
  const { minutes, picker } = useRange();
  const data = useLoad((signal) => get(`/api/services/${service.id}/metrics/history?${span(minutes)}`, signal), [service.id, minutes]);
  useEvents(`/api/environments/${service.environmentId}/metrics/stream`, (e) => { if (e.type === 'metrics') data.reload(); });
  const h = data.data;
  const label = (c: any) => `${c.containerName} on ${c.serverName}`;
  return (
    <section aria-labelledby="metrics-h" class="metrics">
      <h2 id="metrics-h">Metrics</h2>
      {picker('container-range')}
      <ErrorNote error={data.error} />
      {h && (h.containers.length ? (
        <div class="chart-pair">
          <Chart id="container-cpu" title="Container CPU" timestamps={h.timestamps} format={percent}
            series={h.containers.map((c: any) => ({ label: label(c), values: c.cpuPercent }))} />
          <Chart id="container-memory" title="Container memory" timestamps={h.timestamps} format={bytes}
            series={h.containers.map((c: any) => ({ label: label(c), values: c.memoryUsedBytes }))} />
        </div>
      ) : <p>No deployment: nothing to measure.</p>)}
    </section>
  );
}
