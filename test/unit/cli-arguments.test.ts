import { expect } from 'chai';
import { buildProgram, runProgram } from '../../controller/cli/program.js';
import { parseDuration, parseWaitFor } from '../../controller/cli/duration.js';
import { kindOf } from '../../controller/cli/kinds.js';
import { rollbackTarget } from '../../controller/cli/commands/deploy.js';
import { planFailure, type Plan } from '../../controller/cli/follow-plan.js';
import { liveDisplay, plainDisplay, stepLine, waveLine } from '../../controller/cli/plan-display.js';
import { rolloutText } from '../../controller/cli/commands/get.js';
import { PLAIN } from '../../controller/cli/format-changes.js';
import { UsageError } from '../../controller/cli/cli-error.js';
import { completionScript } from '../../controller/cli/commands/completion.js';

/** Runs the program in this process with stdout and stderr captured. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string) => { out += s; return true }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { err += s; return true }) as typeof process.stderr.write;
  try {
    return { code: await runProgram(buildProgram(), argv), out, err };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

describe('cli arguments', () => {
  it('--help, help CMD and CMD --help exit 0 with the usage on stdout', async () => {
    for (const argv of [['--help'], ['help', 'get'], ['get', '--help'], ['plan', 'help', 'follow']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).to.equal(0);
      expect(r.out, argv.join(' ')).to.include('Usage: stevedore');
    }
  });

  it('an unknown command, option or missing argument exits 64 with a one-line error and the usage', async () => {
    for (const argv of [['frobnicate'], ['get', 'services', '--bogus'], ['deploy'], []]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).to.equal(64);
      expect(r.err, argv.join(' ')).to.include('Usage: stevedore');
    }
    expect((await run(['frobnicate'])).err).to.match(/^stevedore: unknown command 'frobnicate'\n/);
  });

  it('--version prints the version and exits 0', async () => {
    const r = await run(['--version']);
    expect(r.code).to.equal(0);
    expect(r.out).to.match(/^stevedore \d+\.\d+\.\d+\n$/);
  });

  it('reads durations as kubectl does and refuses anything else as a usage error', () => {
    expect(parseDuration('5m')).to.equal(300_000);
    expect(parseDuration('1h30m')).to.equal(5_400_000);
    expect(parseDuration('90')).to.equal(90_000);
    expect(parseDuration('250ms')).to.equal(250);
    expect(() => parseDuration('5 minutes')).to.throw(UsageError);
  });

  it('reads --for=condition=NAME[=STATUS], True by default', () => {
    expect(parseWaitFor('condition=Ready')).to.deep.equal({ type: 'Ready', status: 'True' });
    expect(parseWaitFor('condition=degraded=false')).to.deep.equal({ type: 'Degraded', status: 'False' });
    expect(() => parseWaitFor('delete')).to.throw(UsageError);
  });

  it('knows kinds by their plural, singular and short names', () => {
    expect(kindOf('svc')[0]).to.equal('services');
    expect(kindOf('environment')[0]).to.equal('environments');
    expect(kindOf('deployment-plans')[0]).to.equal('plans');
    expect(() => kindOf('pods')).to.throw(UsageError, /kinds: environments/);
  });

  it('rollback goes to the newest revision before the current one that succeeded', () => {
    const revs = [{ revision: 4, outcome: 'failed' }, { revision: 3, outcome: 'succeeded' }, { revision: 2, outcome: 'failed' }, { revision: 1, outcome: 'succeeded' }];
    expect(rollbackTarget(revs, 3)).to.equal(1);
    expect(() => rollbackTarget(revs, 1)).to.throw(/nothing to roll back to/);
  });

  it('a step line names the container, server, tag and status, and a failure names the failed step', () => {
    const step = { id: 's', position: 0, status: 'failed', containerName: 'web-1', serverId: 'x', imageTag: 'v2', error: 'pull failed' };
    expect(stepLine(step, 's1', PLAIN)).to.equal('web-1 on s1: deploy v2 failed: pull failed');
    const plan: Plan = { id: 'p', status: 'rolled_back', error: null, steps: [step] };
    expect(planFailure(plan, new Map([['x', 's1']]))).to.equal('plan p rolled_back at web-1 on s1: pull failed');
  });

  it('off a terminal a followed plan is a line per change; on one, a block redrawn in place', () => {
    const names = new Map([['x', 's1'], ['y', 's2']]);
    const steps = (a: string, b: string) => [
      { id: '1', position: 0, status: a, containerName: 'web-1', serverId: 'x', imageTag: 'v2', error: null },
      { id: '2', position: 1, status: b, containerName: 'web-2', serverId: 'y', imageTag: 'v2', error: null }];
    let plain = '';
    const d = plainDisplay(names, PLAIN, (s) => { plain += s; });
    d.show('p', 'running', steps('running', 'pending'));
    d.show('p', 'running', steps('running', 'pending'));
    d.show('p', 'succeeded', steps('succeeded', 'succeeded'));
    expect(plain).to.equal(['plan p: running', 'web-1 on s1: deploy v2 running', 'web-2 on s2: deploy v2 pending',
      'plan p: succeeded', 'web-1 on s1: deploy v2 succeeded', 'web-2 on s2: deploy v2 succeeded', ''].join('\n'));
    let live = '';
    const l = liveDisplay(names, PLAIN, (s) => { live += s; });
    l.show('p', 'running', steps('running', 'pending'));
    expect(live).to.equal('plan p: running\n  web-1 on s1: deploy v2 running\n  web-2 on s2: deploy v2 pending\n');
    live = '';
    l.show('p', 'succeeded', steps('succeeded', 'succeeded'));
    expect(live).to.equal('\u001b[3F\u001b[Jplan p: succeeded\n  web-1 on s1: deploy v2 succeeded\n  web-2 on s2: deploy v2 succeeded\n');
  });

  it('a followed plan with waves prints each phase of its current wave once, and the block shows it', () => {
    const names = new Map([['x', 's1']]);
    const steps = [{ id: '1', position: 0, status: 'succeeded', containerName: 'web-1', serverId: 'x', imageTag: 'v2', error: null }];
    const wave = (phase: string, pauseUntil: string | null = null, pausedBy: string | null = null) => waveLine({ index: 0, of: 2, phase, pauseUntil, pausedBy });
    expect(wave('analysing')).to.equal('wave 1/2 analysing');
    expect(wave('paused', null, 'rollout')).to.equal('wave 1/2 paused until promoted');
    expect(wave('paused', '2026-11-27T10:02:13.000Z', 'rollout')).to.equal('wave 1/2 paused until 10:02:13 UTC');
    expect(wave('paused', null, 'operator')).to.match(/^wave 1\/2 paused by an operator/);
    expect(waveLine(null)).to.equal(null);
    let plain = '';
    const d = plainDisplay(names, PLAIN, (s) => { plain += s; });
    d.show('p', 'running', steps, wave('analysing'));
    d.show('p', 'running', steps, wave('analysing'));
    d.show('p', 'running', steps, wave('paused', null, 'rollout'));
    expect(plain).to.equal(['plan p: running', 'plan p: wave 1/2 analysing', 'web-1 on s1: deploy v2 succeeded', 'plan p: wave 1/2 paused until promoted', ''].join('\n'));
    let live = '';
    liveDisplay(names, PLAIN, (s) => { live += s; }).show('p', 'running', steps, wave('analysing'));
    expect(live).to.equal('plan p: running, wave 1/2 analysing\n  web-1 on s1: deploy v2 succeeded\n');
  });

  it('describe tells a service\'s rollout in one line', () => {
    expect(rolloutText(null)).to.equal('one server at a time (no rollout)');
    expect(rolloutText({ strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 60 }, { servers: '50%' }, { pause: true }], analysis: { durationSec: 30 } }))
      .to.equal('canary: servers 1, pause 60 s, servers 50%, pause until promoted; analysis 30 s');
    expect(rolloutText({ strategy: 'rolling', maxUnavailable: 2 })).to.equal('rolling (maxUnavailable 2)');
  });

  it('completion scripts name every command and the kinds of get', () => {
    const program = buildProgram();
    for (const shell of ['bash', 'zsh']) {
      const script = completionScript(shell, program);
      expect(script).to.include('deploy').and.include('revisions').and.include('environments');
    }
    expect(() => completionScript('fish', program)).to.throw(UsageError);
  });
});
