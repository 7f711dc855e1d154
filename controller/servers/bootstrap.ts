// Bootstrap of a server over SSH: find out the distribution, install Docker from its packages
// when missing, start it the way the init system does, and verify a daemon answers. Each step is
// written to server_bootstrap_runs as it starts and ends, so a client polls the status.
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';
import type { BootstrapRunRow, BootstrapStep } from '../store/repositories/server-bootstrap-runs.js';
import { conflict } from '../errors/app-error.js';
import {
  asRoot, detectInit, dockerServerVersion, hasCommand, installDocker, readOsRelease, startDocker, userId, type InitSystem,
} from '../hosts/commands/bootstrap.js';
import { messageOf } from '../deploy/message-of.js';
import { distributionOf } from './os-release.js';

/** A run whose runner has not touched it for this long belongs to a controller that stopped. */
export const BOOTSTRAP_STALE_MS = 60_000;
const HEARTBEAT_MS = 10_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const COMMAND_TIMEOUT_MS = 60_000;
const DAEMON_WAIT_MS = 60_000;

const tail = (text: string, max = 4000) => (text.length > max ? `…${text.slice(-max)}` : text);

class StepFailed extends Error {}

/** One run, step by step; every change of a step is stored before the next command runs. */
class BootstrapRunner {
  private readonly steps: BootstrapStep[] = [];

  constructor(private readonly s: Services, private readonly server: ServerRow, private readonly run: BootstrapRunRow) {}

  private exec(argv: string[], timeoutMs = COMMAND_TIMEOUT_MS) {
    return this.s.hosts.exec(this.server.id, argv, { check: false, timeoutMs });
  }

  private async step<T>(name: string, work: (step: BootstrapStep) => Promise<T>): Promise<T> {
    const step: BootstrapStep = { name, status: 'running', message: '', commands: [], output: null, startedAt: new Date().toISOString(), finishedAt: null };
    this.steps.push(step);
    await this.s.serverBootstrapRuns.progress(this.run.id, { steps: this.steps });
    try {
      const out = await work(step);
      if (step.status === 'running') step.status = 'succeeded';
      return out;
    } catch (e) {
      step.status = 'failed';
      step.message ||= messageOf(e);
      throw e instanceof StepFailed ? e : new StepFailed(`${name}: ${messageOf(e)}`);
    } finally {
      step.finishedAt = new Date().toISOString();
      await this.s.serverBootstrapRuns.progress(this.run.id, { steps: this.steps });
    }
  }

  /** Runs each argv in order; the first non-zero exit fails the step with its output. */
  private async runAll(step: BootstrapStep, commands: string[][], timeoutMs = COMMAND_TIMEOUT_MS) {
    for (const argv of commands) {
      step.commands.push(argv);
      const res = await this.exec(argv, timeoutMs);
      step.output = tail(`${res.stdout}${res.stderr}`.trim()) || null;
      if (res.code !== 0) {
        step.message = `${argv.join(' ')} exited with ${res.code}`;
        throw new StepFailed(`${step.name}: ${step.message}`);
      }
    }
  }

  private async dockerAnswers(): Promise<string | null> {
    const res = await this.exec(dockerServerVersion());
    return res.code === 0 && res.stdout.trim() ? res.stdout.trim() : null;
  }

  async execute(): Promise<void> {
    const beat = setInterval(() => void this.s.serverBootstrapRuns.heartbeat(this.run.id).catch(() => {}), HEARTBEAT_MS);
    try {
      const distribution = await this.step('detect-distribution', async (step) => {
        step.commands.push(readOsRelease());
        const res = await this.exec(readOsRelease());
        if (res.code !== 0) throw new StepFailed(`detect-distribution: /etc/os-release is not readable (${res.stderr.trim() || `exit ${res.code}`})`);
        const d = distributionOf(res.stdout);
        step.message = `${d.prettyName ?? d.id}; packages: ${d.packageManager ?? 'unknown'}`;
        await this.s.serverBootstrapRuns.progress(this.run.id, { distribution: d as unknown as Record<string, unknown> });
        return d;
      });
      const root = await this.step('check-privileges', async (step) => {
        step.commands.push(userId());
        const res = await this.exec(userId());
        const isRoot = res.stdout.trim() === '0';
        step.message = isRoot ? 'logged in as root' : `logged in as uid ${res.stdout.trim()}: commands run through sudo -n`;
        return isRoot;
      });
      const running = await this.step('check-docker', async (step) => {
        step.commands.push(dockerServerVersion());
        const version = await this.dockerAnswers();
        step.message = version ? `Docker ${version} is running` : 'no Docker daemon answers';
        return version;
      });
      if (running) {
        for (const name of ['install-docker', 'start-docker']) await this.skip(name, 'Docker is already running');
        await this.finish('succeeded', null);
        return;
      }
      await this.step('install-docker', async (step) => {
        step.commands.push(hasCommand('dockerd'));
        if ((await this.exec(hasCommand('dockerd'))).code === 0) {
          step.status = 'skipped';
          step.message = 'dockerd is installed';
          return;
        }
        if (!distribution.packageManager) {
          throw new StepFailed(`install-docker: no known Docker package for ${distribution.prettyName ?? distribution.id}; install Docker by hand`);
        }
        await this.runAll(step, installDocker(distribution.packageManager).map((c) => asRoot(root, c)), INSTALL_TIMEOUT_MS);
        step.message = `installed from the ${distribution.packageManager} packages`;
      });
      await this.step('start-docker', async (step) => {
        step.commands.push(detectInit());
        const init = ((await this.exec(detectInit())).stdout.trim() || 'sysv') as InitSystem;
        await this.runAll(step, startDocker(init).map((c) => asRoot(root, c)));
        step.message = `started through ${init}`;
      });
      await this.step('verify-docker', async (step) => {
        step.commands.push(dockerServerVersion());
        const until = Date.now() + DAEMON_WAIT_MS;
        for (;;) {
          const version = await this.dockerAnswers();
          if (version) {
            step.message = `Docker ${version} answers`;
            return;
          }
          if (Date.now() > until) throw new StepFailed(`verify-docker: no Docker daemon answered within ${DAEMON_WAIT_MS / 1000} s`);
          await new Promise((r) => setTimeout(r, 500));
        }
      });
      await this.finish('succeeded', null);
    } catch (e) {
      await this.finish('failed', messageOf(e));
    } finally {
      clearInterval(beat);
    }
  }

  private async skip(name: string, message: string) {
    const now = new Date().toISOString();
    this.steps.push({ name, status: 'skipped', message, commands: [], output: null, startedAt: now, finishedAt: now });
  }

  private async finish(status: 'succeeded' | 'failed', error: string | null) {
    await this.s.serverBootstrapRuns.finish(this.run.id, status, this.steps, error);
    this.s.logger.info('server bootstrap finished', { serverId: this.server.id, runId: this.run.id, status });
  }
}

/**
 * Starts a bootstrap of an ssh-mode server and returns its run at once; the steps go on in the
 * background. 409 while another bootstrap of the server runs, and for socket-mode servers (the
 * controller's own machine: Docker is how it is reached at all).
 */
export async function startBootstrap(s: Services, server: ServerRow): Promise<BootstrapRunRow> {
  if (server.dockerMode === 'socket') {
    throw conflict('A socket-mode server is the controller\'s own machine: Stevedore does not install Docker there');
  }
  await s.serverBootstrapRuns.failAbandoned(server.id, BOOTSTRAP_STALE_MS);
  const run = await s.serverBootstrapRuns.start(server.id);
  void new BootstrapRunner(s, server, run).execute().catch((e) => s.logger.error('server bootstrap crashed', { runId: run.id, error: messageOf(e) }));
  return run;
}
