// A schedule's turn in a scheduler tick (controller/databases/cron-schedule.ts): databases' and
// volumes' backup and drill schedules are claimed through it.
import { expect } from 'chai';
import { claimIfDue } from '../../../controller/databases/cron-schedule.js';

describe('claimIfDue: one schedule in one tick', () => {
  const now = new Date('2026-12-02T03:30:00Z');
  const recorder = (answer: boolean) => {
    const calls: Array<[string | null, string | null]> = [];
    const claim = async (was: Date | null, next: Date | null) => {
      calls.push([was && was.toISOString(), next && next.toISOString()]);
      return answer;
    };
    return { calls, claim };
  };

  it('gives a schedule with no next time its next occurrence (UTC) and does not run it', async () => {
    const r = recorder(true);
    expect(await claimIfDue('0 4 * * *', null, null, now, r.claim)).to.equal(false);
    expect(r.calls).to.deep.equal([[null, '2026-12-02T04:00:00.000Z']]);
  });

  it('leaves a schedule not due yet alone', async () => {
    const r = recorder(true);
    expect(await claimIfDue('0 4 * * *', null, new Date('2026-12-02T04:00:00Z'), now, r.claim)).to.equal(false);
    expect(r.calls).to.deep.equal([]);
  });

  it('moves a due one to the next occurrence after now (seconds too) and runs it only for the caller that moved it', async () => {
    const was = new Date('2026-12-02T03:29:59Z');
    const won = recorder(true);
    expect(await claimIfDue('*/15 * * * * *', null, was, now, won.claim)).to.equal(true);
    expect(won.calls).to.deep.equal([[was.toISOString(), '2026-12-02T03:30:15.000Z']]);
    // another replica's compare-and-set found the time already moved
    const lost = recorder(false);
    expect(await claimIfDue('*/15 * * * * *', null, was, now, lost.claim)).to.equal(false);
  });

  it('a time missed while the controller was down runs once; a zone moves the occurrence', async () => {
    const r = recorder(true);
    expect(await claimIfDue('0 4 * * *', 'Europe/Berlin', new Date('2026-11-28T03:00:00Z'), now, r.claim)).to.equal(true);
    expect(r.calls[0][1]).to.equal('2026-12-03T03:00:00.000Z');
  });

  it('stops a schedule whose expression cannot be computed (next time null)', async () => {
    const r = recorder(true);
    await claimIfDue('not a cron', null, null, now, r.claim);
    expect(r.calls).to.deep.equal([[null, null]]);
  });
});
