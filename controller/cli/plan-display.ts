import type { Palette } from './format-changes.js';

export interface PlanStep { id: string; position: number; status: string; containerName: string; serverId: string | null; imageTag: string | null; error: string | null; action?: string }

/** One line per step: "web on s1: deploy v2 succeeded" (and the reason of a failure). */
export function stepLine(step: PlanStep, serverName: string | undefined, p: Palette): string {
  const colour = step.status === 'succeeded' ? p.green : ['failed', 'rolled_back', 'cancelled'].includes(step.status) ? p.red : p.yellow;
  const what = `${step.action ?? 'deploy'}${step.imageTag ? ` ${step.imageTag}` : ''}`;
  const why = step.error ? `: ${step.error}` : '';
  return `${step.containerName} on ${serverName ?? step.serverId ?? '?'}: ${what} ${colour(step.status)}${why}`;
}

/** The wave a running plan is in and what it does (the plan read's currentWave). */
export interface CurrentWave { index: number; of: number; phase: string; pauseUntil: string | null; pausedBy: string | null }

/** "wave 1/2 analysing", "wave 1/2 paused until promoted", "wave 2/3 paused until 10:02:13". */
export function waveLine(w: CurrentWave | null | undefined): string | null {
  if (!w) return null;
  const what = w.phase !== 'paused' ? w.phase
    : w.pausedBy === 'operator' ? 'paused by an operator (stevedore: POST …/resume or …/promote)'
      : w.pauseUntil ? `paused until ${new Date(w.pauseUntil).toISOString().slice(11, 19)} UTC` : 'paused until promoted';
  return `wave ${w.index + 1}/${w.of} ${what}`;
}

/** How a followed plan is shown: `show` gets the plan each time it may have changed. */
export interface PlanDisplay { show(planId: string, status: string, steps: PlanStep[], wave?: string | null): void }

/**
 * Off a terminal (or with --no-color): a line for each change, in the order they happen, so a
 * log or CI output reads as a history.
 */
export function plainDisplay(names: Map<string, string>, p: Palette, write: (s: string) => void): PlanDisplay {
  const seen = new Map<string, string>();
  let last = '';
  let lastWave: string | null = null;
  return {
    show(planId, status, steps, wave) {
      if (status !== last) write(`plan ${planId}: ${status}\n`);
      last = status;
      if (wave && wave !== lastWave) write(`plan ${planId}: ${wave}\n`);
      lastWave = wave ?? lastWave;
      for (const step of steps) {
        if (seen.get(step.id) === step.status || (step.status === 'pending' && status === 'pending')) continue;
        seen.set(step.id, step.status);
        write(`${stepLine(step, names.get(step.serverId ?? ''), p)}\n`);
      }
    },
  };
}

/** On a terminal: one block, a line per server's step, redrawn in place as steps move. */
export function liveDisplay(names: Map<string, string>, p: Palette, write: (s: string) => void): PlanDisplay {
  let drawn = 0;
  return {
    show(planId, status, steps, wave) {
      const lines = [`plan ${planId}: ${status}${wave ? `, ${wave}` : ''}`, ...steps.map((s) => `  ${stepLine(s, names.get(s.serverId ?? ''), p)}`)];
      // back to the block's first line, clear to the end of the screen, draw it again
      write(`${drawn ? `\u001b[${drawn}F\u001b[J` : ''}${lines.join('\n')}\n`);
      drawn = lines.length;
    },
  };
}
