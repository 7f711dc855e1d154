// Metrics history as the API answers it: columnar (one timestamps array, one array per metric,
// aligned; null where no sample had the metric), downsampled to buckets so that a long range
// never answers more than MAX_POINTS points. The answer is written as JSON text around the series
// text PostgreSQL builds (ServerSamplesRepository.history).
import type { HistoryColumns } from '../store/repositories/server-samples.js';
import type { ServerMetricName } from './server-sample.js';

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

/**
 * The answer's JSON text (a `ColumnarHistory`): the frame and the timestamps written here, the
 * series spliced in as PostgreSQL wrote them, never parsed (up to 10,080 points of 13 metrics).
 */
export function columnarJson(from: Date, to: Date, stepSec: number, h: HistoryColumns): string {
  const frame = JSON.stringify({ from: from.toISOString(), to: to.toISOString(), stepSec, timestamps: isoOfWholeSeconds(h.buckets) });
  return `${frame.slice(0, -1)},"series":${h.seriesJson}}`;
}

const DAY_SEC = 86_400;
const two = (n: number) => (n < 10 ? '0' + n : String(n));

/**
 * ISO 8601 strings of whole epoch seconds (bucket starts, in any order), as toISOString
 * writes them. A week at one minute is 10,080 of them: a Date and toISOString each cost 8 ms of
 * the read, the date part written once a day and the time by arithmetic under 1 ms.
 */
export function isoOfWholeSeconds(secs: number[]): string[] {
  let day = NaN;
  let prefix = '';
  return secs.map((sec) => {
    const d = Math.floor(sec / DAY_SEC);
    if (d !== day) {
      day = d;
      prefix = new Date(d * DAY_SEC * 1000).toISOString().slice(0, 11);
    }
    const r = sec - d * DAY_SEC;
    return `${prefix}${two(Math.floor(r / 3600))}:${two(Math.floor(r / 60) % 60)}:${two(r % 60)}.000Z`;
  });
}
