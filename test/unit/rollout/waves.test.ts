import { expect } from 'chai';
import { resolveCount, rolloutProblem, splitWaves, type Rollout } from '../../../controller/model/rollout.js';
import { containerVerdict, httpVerdict, metricVerdict, missingSamples } from '../../../reconcilers/deployment/plans/analysis-verdict.js';

const sizes = (r: Rollout, n: number) => splitWaves(r, n)!.map((w) => w.size);

describe('rollout waves', () => {
  it('resolves N and "N%" of the servers: percentages round up, at least one, never more than all', () => {
    expect(resolveCount(1, 3)).to.equal(1);
    expect(resolveCount(5, 3)).to.equal(3);
    expect(resolveCount('50%', 3)).to.equal(2);
    expect(resolveCount('34%', 3)).to.equal(2);
    expect(resolveCount('33%', 3)).to.equal(1);
    expect(resolveCount('1%', 200)).to.equal(2);
    expect(resolveCount('1%', 10)).to.equal(1);
    expect(resolveCount('100%', 7)).to.equal(7);
    expect(resolveCount('0%', 7)).to.equal(0);
  });

  it('no rollout is no waves; all-at-once is one wave of every server at once', () => {
    expect(splitWaves(null, 3)).to.equal(null);
    expect(splitWaves({ strategy: 'all-at-once' }, 4)).to.deep.equal([{ size: 4, width: 4, analysis: false }]);
  });

  it('rolling: waves of maxUnavailable servers, each updated at once, analysis between them', () => {
    expect(sizes({ strategy: 'rolling' }, 3)).to.deep.equal([1, 1, 1]);
    const w = splitWaves({ strategy: 'rolling', maxUnavailable: 2, analysis: { durationSec: 5 } }, 5)!;
    expect(w.map((x) => [x.size, x.width, x.analysis])).to.deep.equal([[2, 2, true], [2, 2, true], [1, 1, false]]);
    expect(sizes({ strategy: 'rolling', maxUnavailable: '50%' }, 4)).to.deep.equal([2, 2]);
  });

  it('canary: steps are cumulative, pauses attach to the wave before them, the rest is the last wave', () => {
    const r: Rollout = { strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 30 }, { servers: '50%' }, { pause: true }], analysis: { durationSec: 10 } };
    expect(splitWaves(r, 10)).to.deep.equal([
      { size: 1, width: 1, analysis: true, pauseSec: 30 },
      { size: 4, width: 1, analysis: true, pause: true },
      { size: 5, width: 1, analysis: false },
    ]);
    // 3 servers: one canary, then the two others
    expect(sizes({ strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 5 }] }, 3)).to.deep.equal([1, 2]);
    // a step that adds nothing makes no wave; a pause after the last servers step is dropped with it
    const all = splitWaves({ strategy: 'canary', steps: [{ servers: 2 }, { servers: 1 }, { servers: '100%' }, { pause: true }] }, 3)!;
    expect(all).to.deep.equal([{ size: 2, width: 1, analysis: false }, { size: 1, width: 1, analysis: false }]);
    expect(splitWaves({ strategy: 'canary', maxUnavailable: 2, steps: [{ servers: '50%' }] }, 6)!.map((x) => x.width)).to.deep.equal([2, 2]);
    expect(sizes({ strategy: 'canary', steps: [{ servers: 1 }] }, 1)).to.deep.equal([1]);
  });

  it('wave sizes always add up to the servers', () => {
    const rollouts: Rollout[] = [
      { strategy: 'canary', steps: [{ servers: '10%' }, { servers: '30%' }, { servers: 7 }] }, { strategy: 'rolling', maxUnavailable: 3 }, { strategy: 'all-at-once' },
    ];
    for (const r of rollouts) for (let n = 1; n <= 25; n++) expect(sizes(r, n).reduce((a, b) => a + b, 0), `${r.strategy} ${n}`).to.equal(n);
  });

  it('refuses steps outside canary and a canary without a first wave', () => {
    expect(rolloutProblem({ strategy: 'rolling', steps: [{ servers: 1 }] })).to.match(/belong to the canary/);
    expect(rolloutProblem({ strategy: 'canary' })).to.match(/needs steps/);
    expect(rolloutProblem({ strategy: 'canary', steps: [{ pause: true }, { servers: 1 }] })).to.match(/starts with a wave/);
    expect(rolloutProblem({ strategy: 'canary', steps: [{ servers: 1 }, { pause: true }] })).to.equal(null);
    expect(rolloutProblem(null)).to.equal(null);
  });
});

describe('analysis verdicts', () => {
  const now = new Date('2026-11-27T10:00:10Z');
  const started = new Date('2026-11-27T10:00:02Z');
  const ok = { target: 'web-1', running: true, exitCode: 0, health: 'healthy', restartCount: 0, startedAt: started };

  it('a healthy running container passes; unhealthy names the seconds since it started', () => {
    expect(containerVerdict(ok, {}, now)).to.equal(null);
    expect(containerVerdict({ ...ok, health: 'starting' }, {}, now)).to.equal(null);
    expect(containerVerdict({ ...ok, health: null }, {}, now)).to.equal(null);
    expect(containerVerdict({ ...ok, health: 'unhealthy' }, {}, now)).to.deep.include({ check: 'health', figure: 8, message: 'web-1: unhealthy after 8 s' });
    expect(containerVerdict({ ...ok, health: 'unhealthy' }, { healthChecks: false }, now)).to.equal(null);
  });

  it('restarts over maxRestarts and a stopped container fail, naming the figure', () => {
    expect(containerVerdict({ ...ok, restartCount: 2 }, {}, now)!.message).to.equal('web-1: restarted 2 times > 0');
    expect(containerVerdict({ ...ok, restartCount: 2 }, { maxRestarts: 2 }, now)).to.equal(null);
    expect(containerVerdict({ ...ok, running: false, exitCode: 137 }, {}, now)!.message).to.equal('web-1: not running (exit code 137) after 8 s');
  });

  it('httpGet: the expected status passes, another status or an error fails', () => {
    const probe = { port: 80, path: '/health' };
    expect(httpVerdict('web-1', probe, { status: 200 })).to.equal(null);
    expect(httpVerdict('web-1', { ...probe, expectStatus: 204 }, { status: 204 })).to.equal(null);
    expect(httpVerdict('web-1', probe, { status: 500 })!.message).to.equal('web-1: GET :80/health answered 500, expected 200');
    expect(httpVerdict('web-1', probe, { error: 'connection refused' })!.message).to.equal('web-1: GET :80/health failed: connection refused');
  });

  it('metric ceilings: any sample over the ceiling fails with its figure; memory is a percent of the limit', () => {
    const s = (cpuPercent: number, used = 10, limit = 100) => ({ cpuPercent, memoryUsedBytes: used, memoryLimitBytes: limit });
    expect(metricVerdict('web-1', [{ name: 'cpuPercent', max: 80 }], [s(10), s(79.9)])).to.equal(null);
    expect(metricVerdict('web-1', [{ name: 'cpuPercent', max: 80 }], [s(10), s(97.04)])!.message).to.equal('web-1: cpuPercent 97 > 80');
    expect(metricVerdict('web-1', [{ name: 'memoryPercent', max: 50 }], [s(1, 60, 100)])).to.deep.include({ figure: 60, message: 'web-1: memoryPercent 60 > 50' });
    expect(metricVerdict('web-1', [{ name: 'memoryPercent', max: 50 }], [s(1, 60, 0)])).to.equal(null);
    expect(missingSamples('web-1', [{ name: 'cpuPercent', max: 80 }], [], 10)!.message).to.match(/^web-1: no cpuPercent sample in 10 s/);
    expect(missingSamples('web-1', [{ name: 'cpuPercent', max: 80 }], [s(1)], 10)).to.equal(null);
    expect(missingSamples('web-1', [], [], 10)).to.equal(null);
  });
});
