// A time-series chart drawn by uPlot (about 22 KB gzipped, canvas, no framework): the samples the
// API answered, one line per series, time on x in 24-hour ISO order, the width of its box (a phone
// too); a line goes on across a timestamp where only another series has a sample. The figure's caption says in words what the chart shows (latest and highest value of each
// series, how many samples), for screen readers and for anyone who cannot read a chart.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDate } from './values';
import { tickLabels } from './ticks';

export interface ChartSeries { label: string; values: Array<number | null> }

const COLOURS = ['#0b5cad', '#a40e26', '#116329', '#7a4500', '#6639ba', '#0a6c74'];

export function Chart({ title, timestamps, series, format, id }: {
  title: string;
  /** ISO timestamps the series are aligned with. */
  timestamps: string[];
  series: ChartSeries[];
  /** A value as text with its unit: 12.5 → '12.5 %'. */
  format(v: number): string;
  id: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const xs = timestamps.map((t) => Date.parse(t) / 1000);
  const points = series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
  useEffect(() => {
    if (!box.current) return;
    const width = () => Math.max(240, box.current!.clientWidth);
    const plot = new uPlot({
      width: width(), height: 200,
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(max ?? 1, 1) * 1.1] } },
      series: [
        { value: (_u, v) => (v == null ? '—' : formatDate(v * 1000)) },
        ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: true, value: (_u: uPlot, v: number | null) => (v == null ? '—' : format(v)) })),
      ],
      axes: [
        { values: (_u, splits) => tickLabels(splits) },
        { values: (_u, splits) => splits.map(format), size: 70 },
      ],
      legend: { live: true },
    }, [xs, ...series.map((s) => s.values)] as uPlot.AlignedData, box.current);
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }));
    resize.observe(box.current);
    return () => { resize.disconnect(); plot.destroy(); };
  }, [timestamps, series]);
  return (
    <figure class="chart" aria-labelledby={`${id}-caption`} data-chart={id} data-points={points}>
      <figcaption id={`${id}-caption`}>
        <strong>{title}</strong>{' '}
        <span class="reason">{points ? series.map((s) => summary(s, format)).join('; ') : 'no sample in this range'}</span>
      </figcaption>
      <div ref={box} class="plot" aria-hidden="true" />
    </figure>
  );
}

function summary(s: ChartSeries, format: (v: number) => string): string {
  const values = s.values.filter((v): v is number => v !== null);
  if (!values.length) return `${s.label}: no sample`;
  return `${s.label}: latest ${format(values[values.length - 1])}, highest ${format(Math.max(...values))} (${values.length} samples)`;
}

export const percent = (v: number) => `${Math.round(v * 10) / 10} %`;
export function bytes(v: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${Math.round(v * 10) / 10} ${units[i]}`;
}
