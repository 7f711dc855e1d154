// The charts' time axis (dashboard/src/components/ticks.ts): no two neighbouring ticks read the
// same, whatever their spacing; seconds only when ticks are less than a minute apart, the date
// when they are days apart.
import { expect } from 'chai';
import { tickLabels } from '../../../dashboard/src/components/ticks.js';

const at = (iso: string) => new Date(iso).getTime() / 1000;
const row = (from: string, stepSec: number, n: number) => Array.from({ length: n }, (_, i) => at(from) + i * stepSec);

describe('dashboard chart ticks', () => {
  for (const stepSec of [5, 10, 15, 30, 60, 300, 3600, 6 * 3600, 86_400]) {
    it(`ticks ${stepSec} s apart never repeat a label`, () => {
      const labels = tickLabels(row('2026-11-27T09:00:00', stepSec, 12));
      expect(new Set(labels).size, labels.join(' ')).to.equal(labels.length);
    });
  }

  it('shows seconds only below a minute, and the date from a day', () => {
    expect(tickLabels(row('2026-11-27T09:00:00', 30, 3))).to.deep.equal(['09:00:00', '09:00:30', '09:01:00']);
    expect(tickLabels(row('2026-11-27T09:00:00', 60, 2))).to.deep.equal(['09:00', '09:01']);
    expect(tickLabels(row('2026-11-27T00:00:00', 86_400, 2))).to.deep.equal(['2026-11-27', '2026-11-28']);
  });
});
