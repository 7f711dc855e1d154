// Backup and drill schedules: cron expressions evaluated in the database's time zone (UTC when
// it has none), through the `cron` package the project already uses.
import { CronTime } from 'cron';

/** The first time after `from` the expression fires. Throws on a bad expression or zone. */
export function nextRun(expression: string, timezone: string | null | undefined, from = new Date()): Date {
  return nextRunOf(expression, timezone)(from);
}

/** `nextRun` of one expression, parsed once (a walk over many occurrences). */
export function nextRunOf(expression: string, timezone: string | null | undefined): (from: Date) => Date {
  const zone = timezone || 'UTC';
  const time = new CronTime(expression, zone);
  return (from) => time.getNextDateFrom(from, zone).toJSDate();
}

/** Why an expression (or zone) cannot be used, or null when it can. */
export function scheduleProblem(expression: string, timezone?: string | null): { field: string; message: string } | null {
  if (timezone && !Intl.supportedValuesOf('timeZone').includes(timezone) && timezone !== 'UTC') {
    return { field: 'timezone', message: `Unknown time zone '${timezone}'` };
  }
  try {
    const next = nextRun(expression, timezone);
    if (Number.isNaN(next.getTime())) throw new Error('no next time');
    return null;
  } catch (err) {
    // the cron package's first line is the reason; the rest is a debugging dump
    return { field: 'cron', message: `Invalid cron expression: ${(err as Error).message.split('\n')[0].trim()}` };
  }
}

/**
 * One schedule's turn in a scheduler tick. A schedule with no next time yet (new or changed) gets
 * one: its first run is the next time it fires. A due one is moved to its next time by `claim`
 * (a compare-and-set on the old time), and true is returned to the one caller that moved it: that
 * caller runs it. An expression that cannot be computed stops the schedule (next time null).
 */
export async function claimIfDue(
  expression: string, timezone: string | null, nextAt: Date | null, now: Date,
  claim: (was: Date | null, next: Date | null) => Promise<boolean>,
): Promise<boolean> {
  let next: Date | null = null;
  try { next = nextRun(expression, timezone, now); } catch { next = null; }
  if (nextAt === null) {
    await claim(null, next);
    return false;
  }
  if (new Date(nextAt) > now) return false;
  return claim(nextAt, next);
}
