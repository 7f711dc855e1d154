// Metrics history as the API answers it: columnar (one timestamps array, one array per metric,
// aligned; null where no sample had the metric), downsampled to buckets so that a long range
// never answers more than MAX_POINTS points.
import type { HistoryColumns } from '../store/repositories/server-samples.js';
import { serverMetricNames, type ServerMetricName } from './server-sample.js';

/** Points of a response when the caller names no step (a chart's width). */
export const DEFAULT_POINTS = 720;
/** The most points one response carries: 7 days at one minute fits. */
export const MAX_POINTS = 10_080;

export interface ColumnarHistory {
  from: string;
  to: string;
  stepSec: number;
  timestamps: string[];
  series: Record<ServerMetricName, Array<number | null>>;
}

/** The bucket width: the one asked for, but never so small that the range exceeds MAX_POINTS. */
export function stepFor(from: Date, to: Date, requestedSec?: number): number {
  const rangeSec = Math.max(1, (to.getTime() - from.getTime()) / 1000);
  const floor = Math.ceil(rangeSec / MAX_POINTS);
  if (requestedSec !== undefined) return Math.max(requestedSec, floor);
  return Math.max(60, Math.ceil(rangeSec / DEFAULT_POINTS));
}

export function toColumnar(from: Date, to: Date, stepSec: number, h: HistoryColumns): ColumnarHistory {
  const series = Object.fromEntries(serverMetricNames.map((m) => [m, h.values[m]])) as ColumnarHistory['series'];
  return { from: from.toISOString(), to: to.toISOString(), stepSec, timestamps: h.buckets.map((sec) => new Date(sec * 1000).toISOString()), series };
}
