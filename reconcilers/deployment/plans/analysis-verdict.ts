// The verdicts of a wave's analysis, as pure functions over what was observed: a container's
// state (docker inspect), an HTTP answer, monitoring samples. Each failure names the check, the
// container and the figure ("web-1: unhealthy after 8 s", "web-1: cpuPercent 97 > 80").
import type { Analysis, MetricCeiling } from '../../../controller/model/rollout.js';

export interface AnalysisFailure {
  check: 'health' | 'restarts' | 'running' | 'httpGet' | 'metric';
  /** The container (deployment) it is about. */
  target: string;
  /** The observed figure: seconds, a count, a status, a percentage. */
  figure: number | string | null;
  message: string;
}

/** What docker inspect says of a new container. */
export interface ContainerObservation {
  target: string;
  running: boolean;
  exitCode: number | null;
  /** Docker's health status: healthy, unhealthy, starting, or null when the image has no healthcheck. */
  health: string | null;
  restartCount: number;
  startedAt: Date | null;
}

const secondsSince = (from: Date | null, now: Date) => (from ? Math.max(0, Math.round((now.getTime() - from.getTime()) / 1000)) : null);

/** Health checks: running, not unhealthy, not restarted more than maxRestarts. null: fine so far. */
export function containerVerdict(o: ContainerObservation, a: Pick<Analysis, 'healthChecks' | 'maxRestarts'>, now: Date): AnalysisFailure | null {
  if (a.healthChecks === false) return null;
  const after = secondsSince(o.startedAt, now);
  const max = a.maxRestarts ?? 0;
  if (o.restartCount > max) {
    return { check: 'restarts', target: o.target, figure: o.restartCount, message: `${o.target}: restarted ${o.restartCount} times > ${max}` };
  }
  if (!o.running) {
    return { check: 'running', target: o.target, figure: o.exitCode, message: `${o.target}: not running (exit code ${o.exitCode ?? 'unknown'})${after !== null ? ` after ${after} s` : ''}` };
  }
  if (o.health === 'unhealthy') {
    return { check: 'health', target: o.target, figure: after, message: `${o.target}: unhealthy after ${after ?? '?'} s` };
  }
  return null;
}

/** The HTTP probe: the answer's status against the one expected (an error is a failure too). */
export function httpVerdict(target: string, probe: { port: number; path: string; expectStatus?: number }, answer: { status: number } | { error: string }): AnalysisFailure | null {
  const expect = probe.expectStatus ?? 200;
  if ('error' in answer) {
    return { check: 'httpGet', target, figure: null, message: `${target}: GET :${probe.port}${probe.path} failed: ${answer.error}` };
  }
  if (answer.status === expect) return null;
  return { check: 'httpGet', target, figure: answer.status, message: `${target}: GET :${probe.port}${probe.path} answered ${answer.status}, expected ${expect}` };
}

/** A container's sample: docker stats figures as the monitoring stores them. */
export interface ContainerSampleValues { cpuPercent: number; memoryUsedBytes: number; memoryLimitBytes: number }

export function metricValue(name: MetricCeiling['name'], s: ContainerSampleValues): number | null {
  if (name === 'cpuPercent') return s.cpuPercent;
  return s.memoryLimitBytes > 0 ? (s.memoryUsedBytes / s.memoryLimitBytes) * 100 : null;
}

const round = (x: number) => Math.round(x * 10) / 10;

/** Metric ceilings over the samples of one container taken in the window: the first over its ceiling. */
export function metricVerdict(target: string, ceilings: MetricCeiling[], samples: ContainerSampleValues[]): AnalysisFailure | null {
  for (const c of ceilings) {
    for (const s of samples) {
      const v = metricValue(c.name, s);
      if (v !== null && v > c.max) return { check: 'metric', target, figure: round(v), message: `${target}: ${c.name} ${round(v)} > ${c.max}` };
    }
  }
  return null;
}

/** At the window's end: a ceiling with no sample of the container is not a pass (status never lies). */
export function missingSamples(target: string, ceilings: MetricCeiling[], samples: ContainerSampleValues[], durationSec: number): AnalysisFailure | null {
  if (!ceilings.length || samples.length) return null;
  return {
    check: 'metric', target, figure: null,
    message: `${target}: no ${ceilings.map((c) => c.name).join('/')} sample in ${durationSec} s (the server's metricsMode must collect container metrics)`,
  };
}
