// When a job's occurrence runs (docs/jobs.md): pure, so the scheduler's decisions are unit-tested
// without a clock. Cron expressions (5 fields, or 6 with seconds) are evaluated in the job's time
// zone by the one cron helper the database backups use (controller/databases/cron-schedule.ts).
import { nextRun, nextRunOf } from '../databases/cron-schedule.js';

export interface JobSchedule { schedule: string; timeZone: string | null; deadlineSec: number | null }

/** How many passed occurrences are counted one by one; beyond, the count says "at least". */
const MAX_COUNT = 1000;

export interface DueOccurrence {
  /** The occurrence this tick claims: the latest one at or before `now`. */
  scheduledAt: Date;
  /** Why it is not run (its deadline passed), or null: it runs now. */
  missed: string | null;
  /** Occurrences before it that passed with no controller to run them: never run, only counted (up to MAX_COUNT). */
  passedBefore: number;
  /** The next occurrence after `now`, which the claim moves the job to. */
  next: Date;
}

/** The first occurrence after `from`. Throws on a bad expression or zone (checked when the job is written). */
export const nextOccurrence = (job: JobSchedule, from: Date): Date => nextRun(job.schedule, job.timeZone, from);

/**
 * What to do with a job whose awaited occurrence `due` (its next_run_at) is at or before `now`.
 * Only the latest occurrence passed is claimed (Kubernetes CronJob's rule): a controller down for
 * an hour of a minutely job runs it once when it comes back, not sixty times. It runs when it is
 * at most `deadlineSec` late (no deadline: however late), else it is recorded as missed.
 */
export function dueOccurrence(job: JobSchedule, due: Date, now: Date): DueOccurrence {
  const next = nextRunOf(job.schedule, job.timeZone);
  const t = now.getTime();
  // the latest occurrence at or before now: found from a window behind now that doubles until it
  // holds one, so a seconds schedule down for days costs a few dozen evaluations, not a walk
  let latest = due;
  for (let back = 1000; now.getTime() - back > due.getTime(); back *= 2) {
    const n = next(new Date(t - back));
    if (n.getTime() <= t) {
      latest = n;
      break;
    }
  }
  for (let n = next(latest); n.getTime() <= t; n = next(n)) latest = n;
  // the occurrences in [due, latest): passed, never run
  let passedBefore = latest.getTime() === due.getTime() ? 0 : 1;
  for (let n = next(due); n.getTime() < latest.getTime() && passedBefore < MAX_COUNT; n = next(n)) passedBefore++;
  const lateMs = t - latest.getTime();
  const missed = job.deadlineSec !== null && lateMs > job.deadlineSec * 1000
    ? `not started by its deadline: ${Math.round(lateMs / 1000)} s after ${latest.toISOString()}, deadlineSec is ${job.deadlineSec} (no controller ran the scheduler at that time)`
    : null;
  return { scheduledAt: latest, missed, passedBefore, next: next(now) };
}
