// A plan's waves as they are stored and shown (docs/progressive-delivery.md): each wave's shape
// (built from its service's rollout when the plan is built), where the running plan is (wave,
// phase, pause deadline) and what each analysis found. The engine writes them; reads show them.
import type { Analysis } from './rollout.js';

export interface PlanWave {
  /** 0-based, across the whole plan (a plan of two services numbers the second one's waves on). */
  index: number;
  stage: number;
  serviceId: string;
  serviceName: string;
  size: number;
  /** Steps of the wave run at once. */
  width: number;
  /** Checked after the wave (never after a service's last wave). */
  analysis: Analysis | null;
  pauseSec: number | null;
  /** Waits until promoted after the wave. */
  pause: boolean;
}

export type WavePhase = 'deploying' | 'analysing' | 'paused';

export interface WaveState {
  wave: number;
  phase: WavePhase;
  since: string;
  /** A pauseSec pause: when it ends (null: until promoted, or resumed when an operator paused). */
  pauseUntil: string | null;
  /** Who holds the pause: a `pause`/`pauseSec` step of the rollout, or an operator (POST …/pause). */
  pausedBy: 'rollout' | 'operator' | null;
}

export interface AnalysisFailureRecord { check: string; target: string; figure: number | string | null; message: string }

export interface AnalysisRecord {
  wave: number;
  startedAt: string;
  finishedAt: string | null;
  verdict: 'running' | 'passed' | 'failed';
  /** What was checked: "health", "httpGet :80/", "cpuPercent <= 80". */
  checks: string[];
  /** Containers watched (server names). */
  targets: string[];
  failure: AnalysisFailureRecord | null;
}

export type WaveStatus = 'pending' | WavePhase | 'succeeded' | 'failed' | 'skipped' | 'rolled_back' | 'cancelled';

/** A wave's status from its steps and the plan's state (pure). */
export function waveStatus(wave: number, steps: Array<{ wave: number | null; status: string }>, state: WaveState | null, planActive: boolean, analysis: AnalysisRecord[]): WaveStatus {
  const mine = steps.filter((s) => s.wave === wave);
  if (analysis.some((a) => a.wave === wave && a.verdict === 'failed')) return mine.every((s) => s.status === 'rolled_back') ? 'rolled_back' : 'failed';
  if (mine.some((s) => s.status === 'failed')) return 'failed';
  if (mine.length && mine.every((s) => s.status === 'rolled_back')) return 'rolled_back';
  if (planActive && state?.wave === wave) return state.phase;
  if (mine.length && mine.every((s) => s.status === 'succeeded')) return 'succeeded';
  if (mine.length && mine.every((s) => s.status === 'skipped')) return 'skipped';
  if (mine.length && mine.every((s) => s.status === 'cancelled' || s.status === 'skipped')) return 'cancelled';
  return 'pending';
}
