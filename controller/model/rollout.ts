// A service's rollout (DECISIONS.md, Wave 3, progressive delivery): how a plan's steps for the
// service are grouped into waves, what is checked between waves (analysis) and where the plan
// waits (pauseSec, or pause until promoted). Pure: the kind descriptor's schema and rules, the plan
// builder's wave splitting and the analysis verdicts read it; the engine runs what it decides.
import type { Schema } from '../kinds/schema.js';

export type Count = number | `${number}%`;
export type RolloutStep = { servers: Count } | { pauseSec: number } | { pause: true };
export interface HttpGetProbe { port: number; path: string; expectStatus?: number }
export interface MetricCeiling { name: 'cpuPercent' | 'memoryPercent'; max: number }
export interface Analysis {
  /** Docker health and restarts of the wave's new containers (default true). */
  healthChecks?: boolean;
  /** Restarts a new container may have had (default 0). */
  maxRestarts?: number;
  httpGet?: HttpGetProbe;
  metrics?: MetricCeiling[];
  /** How long the new containers are watched after each wave but the last. */
  durationSec: number;
}
export interface Rollout {
  strategy: 'all-at-once' | 'rolling' | 'canary';
  /** rolling: servers per wave; canary: servers updated at once inside a wave (default 1). */
  maxUnavailable?: Count;
  steps?: RolloutStep[];
  analysis?: Analysis;
}

const PERCENT = '^(100|[1-9]?[0-9])%$';
const count = (description: string): Schema => ({
  description, oneOf: [{ type: 'integer', minimum: 1, maximum: 10_000 }, { type: 'string', pattern: PERCENT }],
});

export const analysisSchema: Schema = {
  type: 'object', additionalProperties: false, required: ['durationSec'],
  description: 'Checks of the new containers between waves; a failure rolls back every touched server and names the check',
  properties: {
    healthChecks: { type: 'boolean', default: true, description: 'Docker health and restarts of the new containers (default true)' },
    maxRestarts: { type: 'integer', minimum: 0, maximum: 1000, description: 'Restarts a new container may have had (default 0)' },
    httpGet: {
      type: 'object', additionalProperties: false, required: ['port', 'path'],
      description: 'An HTTP GET of each new container, made from its server (the pooled SSH connection)',
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535, description: "The container's port" },
        path: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^/[\\x21-\\x7e]*$' },
        expectStatus: { type: 'integer', minimum: 100, maximum: 599, description: 'Default 200' },
      },
    },
    metrics: {
      type: 'array', maxItems: 4,
      items: {
        type: 'object', additionalProperties: false, required: ['name', 'max'],
        properties: { name: { type: 'string', enum: ['cpuPercent', 'memoryPercent'] }, max: { type: 'number', minimum: 0, maximum: 100_000 } },
      },
      description: "Ceilings on each new container's monitoring samples over durationSec (the server's metricsMode must collect them)",
    },
    durationSec: { type: 'integer', minimum: 1, maximum: 3600 },
  },
};

export const rolloutSchema: Schema = {
  type: 'object', additionalProperties: false, required: ['strategy'],
  description: 'How a rollout of the service is split into waves (docs/progressive-delivery.md); none: one server at a time, as the plan says',
  properties: {
    strategy: { type: 'string', enum: ['all-at-once', 'rolling', 'canary'] },
    maxUnavailable: count('rolling: servers per wave; canary: servers updated at once inside a wave. Default 1'),
    steps: {
      type: 'array', minItems: 1, maxItems: 50, description: 'canary: cumulative servers on the new version, pauses between',
      items: {
        oneOf: [
          { type: 'object', additionalProperties: false, required: ['servers'], properties: { servers: count('Servers on the new version after this wave (cumulative)') } },
          { type: 'object', additionalProperties: false, required: ['pauseSec'], properties: { pauseSec: { type: 'integer', minimum: 1, maximum: 86_400 } } },
          { type: 'object', additionalProperties: false, required: ['pause'], properties: { pause: { type: 'boolean', enum: [true], description: 'Wait until promoted' } } },
        ],
      },
    },
    analysis: analysisSchema,
  },
};

/** Rules the schema cannot say: steps belong to canary, and a canary starts with a wave. */
export function rolloutProblem(r: Rollout | null | undefined): string | null {
  if (!r) return null;
  if (r.strategy !== 'canary' && r.steps) return `steps belong to the canary strategy (this rollout is ${r.strategy})`;
  if (r.strategy === 'canary') {
    if (!r.steps?.length) return 'a canary rollout needs steps, starting with {servers: N} or {servers: "N%"}';
    if (!('servers' in r.steps[0])) return 'a canary rollout starts with a wave ({servers: N}), not a pause';
  }
  return null;
}

/** N or "N%" of `total` servers: a percentage rounds up, and is at least 1 when above 0%. */
export function resolveCount(c: Count, total: number): number {
  if (typeof c === 'number') return Math.min(c, total);
  const pct = Number(c.slice(0, -1));
  if (pct <= 0) return 0;
  return Math.min(total, Math.max(1, Math.ceil((total * pct) / 100)));
}

/** One wave of a service's rollout: how many of its servers, how many at once, and what follows it. */
export interface WaveShape {
  size: number;
  width: number;
  /** Watched between this wave and the next (never after the last). */
  analysis: boolean;
  pauseSec?: number;
  /** Waits until promoted. */
  pause?: boolean;
}

/**
 * The waves of a rollout over `total` servers, in order; their sizes add up to `total`. With no
 * rollout: null (the plan's own strategy). Analysis and pauses come between waves, never after
 * the last one (there is nothing left to protect).
 */
export function splitWaves(r: Rollout | null | undefined, total: number): WaveShape[] | null {
  if (!r || total <= 0) return null;
  const width = (w: number) => Math.max(1, Math.min(w, r.maxUnavailable === undefined ? 1 : resolveCount(r.maxUnavailable, total) || 1));
  let waves: WaveShape[];
  if (r.strategy === 'all-at-once') waves = [{ size: total, width: total, analysis: false }];
  else if (r.strategy === 'rolling') {
    const per = r.maxUnavailable === undefined ? 1 : Math.max(1, resolveCount(r.maxUnavailable, total));
    waves = [];
    for (let left = total; left > 0; left -= per) waves.push({ size: Math.min(per, left), width: Math.min(per, left), analysis: false });
  } else {
    waves = [];
    let done = 0;
    for (const step of r.steps ?? []) {
      if ('servers' in step) {
        const target = resolveCount(step.servers, total);
        if (target > done) {
          waves.push({ size: target - done, width: width(target - done), analysis: false });
          done = target;
        }
      } else if (waves.length) {
        const last = waves[waves.length - 1];
        if ('pauseSec' in step) last.pauseSec = (last.pauseSec ?? 0) + step.pauseSec;
        else last.pause = true;
      }
    }
    if (done < total) waves.push({ size: total - done, width: width(total - done), analysis: false });
  }
  const last = waves.length - 1;
  return waves.map((w, i) => (i === last
    ? { size: w.size, width: w.width, analysis: false }
    : { ...w, analysis: !!r.analysis }));
}
