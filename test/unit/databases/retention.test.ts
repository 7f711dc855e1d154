import { expect } from 'chai';
import { rotationPlan } from '../../../controller/databases/retention.js';
import type { BackupRow } from '../../../controller/store/repositories/backups.js';

const DAY = 86_400_000;
const now = new Date('2026-12-14T12:00:00Z');
const b = (id: string, daysAgo: number, extra: Partial<BackupRow> = {}) =>
  ({ id, status: 'succeeded', pinned: false, startedAt: new Date(now.getTime() - daysAgo * DAY), ...extra }) as BackupRow;

describe('backup retention', () => {
  it('keeps nothing back without limits', () => {
    expect(rotationPlan([b('a', 0), b('b', 400)], { keepLast: null, keepDays: null }, now)).to.deep.equal([]);
  });

  it('deletes past keepLast and older than keepDays, never pinned ones', () => {
    const list = [b('a', 0), b('b', 1), b('c', 2, { pinned: true }), b('d', 3), b('e', 40)];
    expect(rotationPlan(list, { keepLast: 2, keepDays: null }, now).map((x) => x.id)).to.deep.equal(['d', 'e']);
    expect(rotationPlan(list, { keepLast: null, keepDays: 30 }, now).map((x) => x.id)).to.deep.equal(['e']);
  });

  it('ranks failed backups apart, so failures never push a good backup out', () => {
    const list = [b('f1', 0, { status: 'failed' }), b('f2', 0.5, { status: 'failed' }), b('a', 1), b('b', 2)];
    expect(rotationPlan(list, { keepLast: 1, keepDays: null }, now).map((x) => x.id)).to.deep.equal(['b', 'f2']);
  });

  it('always keeps the newest succeeded backup, however old', () => {
    expect(rotationPlan([b('old', 100), b('older', 200)], { keepLast: null, keepDays: 7 }, now).map((x) => x.id)).to.deep.equal(['older']);
  });
});
