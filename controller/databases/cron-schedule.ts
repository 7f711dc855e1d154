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
