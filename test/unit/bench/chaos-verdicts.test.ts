// The chaos harness's decisions (bench/chaos/verdicts.ts) and its seeded draws (bench/chaos/random.ts).
import { expect } from 'chai';
import { brokenAnswers, overduePlans, revisionTarget, touched, unexplainedUnavailable, type ServiceStatus } from '../../../bench/chaos/verdicts.js';
import { allowedStatus, type Suspect } from '../../../bench/chaos/api.js';
import { seededRandom, shuffled, streams, weighted } from '../../../bench/chaos/random.js';

const suspect = (o: Partial<Suspect>): Suspect => ({ replica: 'a', method: 'GET', path: '/x', status: 0, started: 1000, ended: 2000, text: '', ...o });

describe('chaos harness verdicts', () => {
  it('allows 2xx, 4xx and 503, nothing else', () => {
    expect([200, 201, 204, 400, 404, 409, 503].every(allowedStatus)).to.equal(true);
    expect([0, 301, 500, 502, 504].some(allowedStatus)).to.equal(false);
  });

  it('excuses a dropped connection only while its own replica was down; a 500 never', () => {
    const down = (replica: string, from: number, to: number) => replica === 'a' && from <= 1500 && to >= 1200;
    const s = [suspect({}), suspect({ replica: 'b' }), suspect({ started: 3000, ended: 4000 }), suspect({ status: 500 })];
    expect(brokenAnswers(s, down)).to.deep.equal([s[1], s[2], s[3]]);
  });

  it('a 503 "database not reachable" is true only inside a database fault\'s window (and its grace)', () => {
    const at = (started: number) => suspect({ status: 503, started, ended: started + 100 });
    const answers = [at(500), at(1500), at(2450), at(4000)];
    expect(unexplainedUnavailable(answers, [[1000, 2000]], 500)).to.deep.equal([answers[0], answers[3]]);
    expect(unexplainedUnavailable(answers, [], 500)).to.deep.equal(answers);
  });

  it('a plan is overdue once it outlived both its creation and the last fault by the budget', () => {
    const plans = [
      { id: '1', name: 'old, running', status: 'running', createdAt: new Date(0) },
      { id: '2', name: 'old, ended', status: 'rolled_back', createdAt: new Date(0) },
      { id: '3', name: 'new', status: 'running', createdAt: new Date(9000) },
    ];
    expect(overduePlans(plans, 10_000, 0, 5000).map((p) => p.id)).to.deep.equal(['1']);
    // a fault that ended at 8 s gives every plan until 13 s
    expect(overduePlans(plans, 10_000, 8000, 5000)).to.deep.equal([]);
  });

  it('a service runs its desired revision, or its last good one with the failure said', () => {
    const svc = (o: Partial<ServiceStatus>): ServiceStatus => ({ name: 'web', desiredRevision: 3, currentRevision: 3, failedRevision: null, conditions: [], ...o });
    expect(revisionTarget(svc({}))).to.deep.equal({ target: 3 });
    expect(revisionTarget(svc({ currentRevision: 2 })).problem).to.match(/desired r3, current r2, and no failure recorded/);
    const failed = { failedRevision: { revision: 3, reason: 'pull failed' }, currentRevision: 2 };
    expect(revisionTarget(svc({ ...failed, conditions: [{ type: 'Degraded', status: 'True' }] }))).to.deep.equal({ target: 2 });
    expect(revisionTarget(svc({ ...failed, conditions: [{ type: 'Degraded', status: 'False' }] })).problem).to.match(/Degraded is False/);
    expect(revisionTarget(svc({ failedRevision: { revision: 2, reason: 'x' } })).problem).to.match(/failedRevision r2 is not the desired r3/);
    expect(revisionTarget(svc({ ...failed, currentRevision: null })).problem).to.match(/no last good revision/);
  });

  it('a container no plan may touch: removed, recreated, stopped, or restarted without its dockerd restarting', () => {
    const before = { id: 'a'.repeat(64), running: true, startedAt: 't1', dockerd: '10' };
    expect(touched(before, { ...before })).to.equal(null);
    expect(touched(before, null)).to.equal('removed');
    expect(touched(before, { ...before, id: 'b'.repeat(64) })).to.match(/^recreated/);
    expect(touched(before, { ...before, running: false })).to.match(/^stopped/);
    expect(touched(before, { ...before, startedAt: 't2' })).to.match(/with the same dockerd/);
    expect(touched(before, { ...before, startedAt: 't2', dockerd: '11' })).to.equal(null);
  });
});

describe('chaos harness random draws', () => {
  it('the same seed draws the same sequence; the two streams differ', () => {
    const a = seededRandom(40);
    const b = seededRandom(40);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).to.deep.equal(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).to.equal(true);
    const s = streams(40);
    expect(s.faults()).to.not.equal(s.workload());
  });

  it('a shuffle keeps every element; weighted draws follow the weights', () => {
    const r = seededRandom(7);
    expect(shuffled(r, [1, 2, 3, 4, 5]).sort()).to.deep.equal([1, 2, 3, 4, 5]);
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 2000; i++) counts[weighted(r, [['a', 3], ['b', 1]] as const)]++;
    expect(counts.a / counts.b).to.be.within(2.4, 3.8);
  });
});
