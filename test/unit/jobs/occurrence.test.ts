// When a job's occurrence runs: cron (5 and 6 fields) in a time zone, the latest passed
// occurrence only, and the deadline that turns a late one into a missed one.
import { expect } from 'chai';
import { dueOccurrence, nextOccurrence, type JobSchedule } from '../../../controller/jobs/occurrence.js';
import { jobProblem } from '../../../controller/kinds/job.js';

const at = (iso: string) => new Date(iso);
const job = (over: Partial<JobSchedule> = {}): JobSchedule => ({ schedule: '* * * * *', timeZone: null, deadlineSec: null, ...over });

describe('scheduled job occurrences', () => {
  it('the next occurrence is strictly after the time it is computed from, in UTC by default', () => {
    expect(nextOccurrence(job(), at('2026-03-01T10:00:00Z')).toISOString()).to.equal('2026-03-01T10:01:00.000Z');
    expect(nextOccurrence(job(), at('2026-03-01T10:00:30Z')).toISOString()).to.equal('2026-03-01T10:01:00.000Z');
    expect(nextOccurrence(job({ schedule: '*/5 * * * * *' }), at('2026-03-01T10:00:05Z')).toISOString()).to.equal('2026-03-01T10:00:10.000Z');
  });

  it('a time zone moves the wall-clock hour: 02:30 daily in Europe/Paris is 01:30 UTC in winter, 00:30 in summer', () => {
    const daily = job({ schedule: '30 2 * * *', timeZone: 'Europe/Paris' });
    expect(nextOccurrence(daily, at('2026-01-10T00:00:00Z')).toISOString()).to.equal('2026-01-10T01:30:00.000Z');
    expect(nextOccurrence(daily, at('2026-07-10T00:00:00Z')).toISOString()).to.equal('2026-07-10T00:30:00.000Z');
    expect(nextOccurrence(job({ schedule: '30 2 * * *', timeZone: 'America/New_York' }), at('2026-01-10T00:00:00Z')).toISOString()).to.equal('2026-01-10T07:30:00.000Z');
  });

  it('an occurrence due now runs now, on time, and the job moves to the following one', () => {
    const d = dueOccurrence(job(), at('2026-03-01T10:01:00Z'), at('2026-03-01T10:01:02Z'));
    expect(d.scheduledAt.toISOString()).to.equal('2026-03-01T10:01:00.000Z');
    expect(d.missed).to.equal(null);
    expect(d.passedBefore).to.equal(0);
    expect(d.next.toISOString()).to.equal('2026-03-01T10:02:00.000Z');
  });

  it('after an hour with no controller, only the latest occurrence is claimed; the others are counted, never run', () => {
    const d = dueOccurrence(job(), at('2026-03-01T10:01:00Z'), at('2026-03-01T11:00:30Z'));
    expect(d.scheduledAt.toISOString()).to.equal('2026-03-01T11:00:00.000Z');
    expect(d.passedBefore).to.equal(59);
    expect(d.missed).to.equal(null); // no deadline: however late
    expect(d.next.toISOString()).to.equal('2026-03-01T11:01:00.000Z');
  });

  it('within deadlineSec a late occurrence runs; past it, it is missed with the reason', () => {
    const late = (deadlineSec: number) => dueOccurrence(job({ deadlineSec }), at('2026-03-01T10:01:00Z'), at('2026-03-01T10:01:40Z'));
    expect(late(60).missed).to.equal(null);
    expect(late(40).missed).to.equal(null); // exactly at the deadline still runs
    const missed = late(30).missed!;
    expect(missed).to.include('40 s after 2026-03-01T10:01:00.000Z');
    expect(missed).to.include('deadlineSec is 30');
    // the deadline is counted from the latest occurrence, not the first one missed
    expect(dueOccurrence(job({ deadlineSec: 30 }), at('2026-03-01T09:00:00Z'), at('2026-03-01T10:01:10Z')).missed).to.equal(null);
  });

  it('a seconds schedule down for days finds its latest occurrence without walking them all; the count stops at 1000', () => {
    const started = Date.now();
    const d = dueOccurrence(job({ schedule: '* * * * * *' }), at('2026-03-01T00:00:00Z'), at('2026-03-04T12:00:00.500Z'));
    expect(d.scheduledAt.toISOString()).to.equal('2026-03-04T12:00:00.000Z');
    expect(d.next.toISOString()).to.equal('2026-03-04T12:00:01.000Z');
    expect(d.passedBefore).to.equal(1000);
    expect(Date.now() - started).to.be.below(3000);
    // a daily job down for ten days: the latest is this morning's
    const daily = dueOccurrence(job({ schedule: '0 6 * * *' }), at('2026-03-01T06:00:00Z'), at('2026-03-11T07:00:00Z'));
    expect(daily.scheduledAt.toISOString()).to.equal('2026-03-11T06:00:00.000Z');
    expect(daily.passedBefore).to.equal(10);
  });

  it('a job as written: a schedule that parses in a known zone, a server or a selector, not both', () => {
    expect(jobProblem({ schedule: '*/5 * * * * *', timeZone: 'Europe/Paris' })).to.equal(null);
    expect(jobProblem({ schedule: 'every minute' })).to.include({ field: 'schedule' });
    expect(jobProblem({ schedule: '* * * * *', timeZone: 'Mars/Olympus' })).to.deep.equal({ field: 'timeZone', message: "Unknown time zone 'Mars/Olympus'" });
    expect(jobProblem({ schedule: '* * * * *', serverId: 'x', serverSelector: { matchLabels: { a: 'b' } } })).to.include({ field: 'serverSelector' });
    expect(jobProblem({ schedule: '* * * * *', server: 's1', serverSelector: { matchLabels: { a: 'b' } } })).to.include({ field: 'serverSelector' });
    expect(jobProblem({ schedule: '* * * * *', serverSelector: { matchLabels: { 'bad key!': 'b' } } })).to.include({ field: 'serverSelector' });
  });
});
