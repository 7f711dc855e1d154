import { expect } from 'chai';
import { buildProgram, runProgram } from '../../controller/cli/program.js';
import { parseDuration, parseWaitFor } from '../../controller/cli/duration.js';
import { kindOf } from '../../controller/cli/kinds.js';
import { rollbackTarget } from '../../controller/cli/commands/deploy.js';
import { planFailure, type Plan } from '../../controller/cli/follow-plan.js';
import { liveDisplay, plainDisplay, stepLine, waveLine } from '../../controller/cli/plan-display.js';
import { rolloutText } from '../../controller/cli/commands/get.js';
import { PLAIN } from '../../controller/cli/format-changes.js';
import { CliError, UsageError } from '../../controller/cli/cli-error.js';
import { changedFields } from '../../controller/cli/commands/objects.js';
import { eventSummary } from '../../controller/cli/commands/observe.js';
import { outsideEnvironment, readManifestFiles } from '../../controller/cli/manifest-commands.js';
import { syncOutcome } from '../../controller/cli/commands/sync.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
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

  it('completion covers the kubectl-style verbs: their names, the kinds after delete/edit/disown, top\'s and plan\'s words', () => {
    const program = buildProgram();
    for (const shell of ['bash', 'zsh']) {
      const script = completionScript(shell, program);
      for (const verb of ['delete', 'edit', 'disown', 'events', 'top', 'apply', 'validate']) expect(script, `${shell} ${verb}`).to.match(new RegExp(`\\b${verb}\\b`));
      expect(script, shell).to.match(/delete\|edit\|disown/);
      expect(script, shell).to.include('servers services');
      // plan's subcommands, from the program: the wave operations complete too
      expect(script, shell).to.match(/get follow promote pause resume/);
      // the kinds the item verbs reach, not plans (no item route)
      expect(script.split('\n').find((l) => l.includes('delete|edit|disown')), shell).to.include('config-files').and.not.include('plans');
    }
  });

  it('edit sends only the fields that changed; an unchanged file is nothing', () => {
    const before = { name: 'web', imageTag: 'v1', env: { A: '1' }, ports: ['80'] };
    expect(changedFields(before, { ...before })).to.deep.equal({});
    expect(changedFields(before, { ...before, imageTag: 'v2', env: { A: '1', B: '2' } })).to.deep.equal({ imageTag: 'v2', env: { A: '1', B: '2' } });
    // a field taken out is left as it was; a new one is sent
    expect(changedFields(before, { name: 'web', restartPolicy: 'always' })).to.deep.equal({ restartPolicy: 'always' });
  });

  it('an event is summarised by its object and status', () => {
    expect(eventSummary('plan.updated', { name: 'deploy web', status: 'running', planId: 'p1' })).to.equal('deploy web status=running');
    expect(eventSummary('deployment.updated', { containerName: 'web-1', serverName: 's1', status: 'failed', error: 'pull failed\nmore' }))
      .to.equal('web-1 on s1 status=failed pull failed');
    expect(eventSummary('drift.changed', { deploymentId: 'd1' })).to.equal('d1');
    expect(eventSummary('health.changed', {})).to.equal('health.changed');
  });

  it('-e ENV: a manifest of another environment (or of none) is an error naming it', () => {
    const files = [{ path: 'a.yaml', content: [
      'apiVersion: stevedore/v1', 'kind: Environment', 'metadata: {name: demo}', 'spec: {}', '---',
      'apiVersion: stevedore/v1', 'kind: Var', 'metadata: {name: A, environment: demo}', 'spec: {value: "1"}', '---',
      'apiVersion: stevedore/v1', 'kind: Var', 'metadata: {name: B, environment: prod}', 'spec: {value: "1"}', '',
    ].join('\n') }];
    const errors = outsideEnvironment(files, 'demo');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ file: 'a.yaml', line: 13, path: 'metadata/environment' });
    expect(errors[0].message).to.equal("Var 'B' belongs to the environment prod, not demo (-e demo)");
    expect(outsideEnvironment(files, 'prod').map((e) => e.message)).to.deep.equal([
      "Environment 'demo' belongs to the environment demo, not prod (-e prod)", "Var 'A' belongs to the environment demo, not prod (-e prod)"]);
  });

  it('apply/validate read a folder, one YAML file (by its name) or stdin (-), and say which when it is none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-read-'));
    try {
      fs.mkdirSync(path.join(dir, 'sub'));
      fs.writeFileSync(path.join(dir, 'sub', 'one.yaml'), 'x: 1\n');
      fs.writeFileSync(path.join(dir, 'notes.txt'), 'x');
      expect(await readManifestFiles(dir)).to.deep.equal([{ path: 'sub/one.yaml', content: 'x: 1\n' }]);
      expect(await readManifestFiles(path.join(dir, 'sub', 'one.yaml'))).to.deep.equal([{ path: 'one.yaml', content: 'x: 1\n' }]);
      expect(await readManifestFiles('-', Readable.from([Buffer.from('a: '), Buffer.from('2\n')]))).to.deep.equal([{ path: 'stdin.yaml', content: 'a: 2\n' }]);
      await expectReject(readManifestFiles(path.join(dir, 'notes.txt')), /notes\.txt is not a \.yaml or \.yml file/);
      await expectReject(readManifestFiles(path.join(dir, 'missing')), /no file or folder .*missing/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function expectReject(p: Promise<unknown>, re: RegExp) {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(CliError);
    expect((e as Error).message).to.match(re);
    return;
  }
  expect.fail('expected a rejection');
}

describe('sync wait', () => {
  const st = (sync: string, applied: string | null, attempt: { ok: boolean; commit: string | null } | null = null, error?: string) =>
    ({ sync, revision: applied ? { commit: applied } : null, lastAttempt: attempt, ...(error && { error }) }) as Parameters<typeof syncOutcome>[0];
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  it('is done once the source is Synced at the commit asked for (any, or one whose SHA starts so)', () => {
    expect(syncOutcome(st('Synced', A))).to.deep.equal({ done: A });
    expect(syncOutcome(st('Synced', A), 'aaaa')).to.deep.equal({ done: A });
    expect(syncOutcome(st('Synced', A), 'bbbb'), 'another commit: look again').to.equal(null);
    expect(syncOutcome(st('Syncing', A))).to.equal(null);
    expect(syncOutcome(st('OutOfSync', A), 'aaaa')).to.equal(null);
  });
  it('fails when the attempt at that commit failed, naming its error; a failure of another commit waits on', () => {
    expect(syncOutcome(st('Failed', A, { ok: false, commit: B }, 'a.yaml:3:1 unknown Server'), 'bbbb')).to.deep.equal({ failed: 'commit bbbbbbbbbbbb failed: a.yaml:3:1 unknown Server' });
    expect(syncOutcome(st('Failed', A, { ok: false, commit: B }, 'x'))).to.deep.equal({ failed: 'commit bbbbbbbbbbbb failed: x' });
    expect(syncOutcome(st('Failed', A, { ok: false, commit: B }, 'x'), 'cccc')).to.equal(null);
  });
});
