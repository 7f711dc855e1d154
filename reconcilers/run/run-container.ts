// One-off runs (docs/exec.md#one-off-runs): a container from the service's current revision,
// rendered by the one desired-container function, with another command, on one of the servers
// the service runs on. It is never the service's container: another name, no deployment-id label
// and a stevedore.run label, no ports (the service holds them), no restart policy, no healthcheck.
// The controller that started it watches it to its end, keeps the exit code and the log tail,
// and removes it.
import type Docker from 'dockerode';
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { ServiceRunRow } from '../../controller/store/repositories/service-runs.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import { AuditLog } from '../../controller/audit/audit-log.js';
import type { Actor } from '../../controller/auth/actor.js';
import { LABEL, type DesiredContainer } from '../../controller/model/desired-container.js';
import { createOptionsOf } from '../../controller/deploy/container-options.js';
import { redactSecrets } from '../../controller/crypto/redact.js';
import { loadDesired, type DesiredReads } from '../deployment/load-desired.js';
import { assertRenderedAllowed } from '../deployment/effects/container-allowed.js';

/** What a run keeps of its output: the last bytes of stdout and stderr together. */
export const RUN_LOG_TAIL_BYTES = 64 * 1024;
/** How often the watcher renews the run's heartbeat (RUN_HEARTBEAT_STALE_SEC is the lease). */
const HEARTBEAT_MS = 5_000;

export const runContainerName = (deploymentContainerName: string, runId: string) => `${deploymentContainerName}-run-${runId.slice(0, 8)}`;

/**
 * Docker create options of a run: the deployment's rendered container (image, env with secrets,
 * config-file mounts, volumes) with the run's command and name, and the run's labels instead of
 * the deployment's, so nothing that looks for a deployment's container by name or label finds it.
 */
export function runCreateOptions(desired: DesiredContainer, runId: string, command: string[]): Docker.ContainerCreateOptions {
  const base = createOptionsOf(desired);
  return {
    ...base,
    name: runContainerName(desired.containerName, runId),
    Cmd: command,
    Labels: {
      [LABEL.managed]: 'true', [LABEL.environment]: desired.environmentId, [LABEL.service]: desired.serviceId, [LABEL.run]: runId,
    },
    ExposedPorts: {},
    Healthcheck: undefined,
    HostConfig: { Binds: base.HostConfig?.Binds ?? [], RestartPolicy: { Name: 'no' } },
  };
}

/** The last `max` bytes of a non-TTY container's log (Docker's multiplexed frames), stdout and stderr as they came. */
export function demuxTail(raw: Buffer, max = RUN_LOG_TAIL_BYTES): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= raw.length) {
    const size = raw.readUInt32BE(i + 4);
    parts.push(raw.subarray(i + 8, Math.min(raw.length, i + 8 + size)));
    i += 8 + size;
  }
  const all = Buffer.concat(parts);
  return all.subarray(Math.max(0, all.length - max)).toString('utf8');
}

type RunReads = DesiredReads & Pick<Services, 'audit' | 'config' | 'hosts' | 'logger' | 'serviceRuns'>;

/** How a run ended, as its row keeps it. */
export interface RunEnd { status: 'succeeded' | 'failed'; exitCode: number | null; logTail: string; reason: string | null }

export interface RunRequest {
  service: ServiceRow; deployment: DeploymentRow; command: string[]; actor: Actor | undefined;
  /** Called once the run's row is ended by its watcher (not when someone ended it first: a replaced job run). */
  onEnd?(run: ServiceRunRow, end: RunEnd): Promise<void>;
}

/**
 * Checks what can be checked before anything runs (a rendered revision, resolved env, the
 * container policy), stores the run as `running` and starts watching it; the answer comes at
 * once, the run goes on. Refusals are errors of the request; a failure on the server ends the run
 * `failed` with the reason.
 */
export async function startRun(s: RunReads, r: RunRequest): Promise<ServiceRunRow> {
  const loaded = await loadDesired(s, r.deployment);
  if (!loaded) throw conflict(`service ${r.service.name} has nothing deployed on this server to run from`, 'Deploy the service first');
  if (loaded.desired.unresolved.length) {
    throw validationError(`env placeholders without a var or secret: ${loaded.desired.unresolved.join(', ')}`, 'env');
  }
  await assertRenderedAllowed(s, loaded);
  const id = crypto.randomUUID();
  const row = await s.serviceRuns.insert({
    id, serviceId: r.service.id, environmentId: r.service.environmentId, deploymentId: r.deployment.id, serverId: r.deployment.serverId,
    containerName: runContainerName(loaded.desired.containerName, id), command: r.command, createdBy: r.actor?.name ?? null,
  });
  void watchRun(s, row, runCreateOptions(loaded.desired, id, r.command), loaded.secretValues, r.actor, r.onEnd)
    .catch((e) => s.logger.error('one-off run watcher failed', { runId: id, error: String(e) }));
  return row;
}

async function watchRun(s: RunReads, run: ServiceRunRow, options: Docker.ContainerCreateOptions, secrets: string[], actor: Actor | undefined, onEnd?: RunRequest['onEnd']): Promise<void> {
  const beat = setInterval(() => { void s.serviceRuns.heartbeat(run.id).catch(() => {}); }, HEARTBEAT_MS);
  let container: Docker.Container | null = null;
  let end: RunEnd;
  try {
    const docker = await s.hosts.docker(run.serverId!);
    container = await docker.createContainer(options);
    await container.start();
    const waited = (await container.wait()) as { StatusCode: number };
    const raw = (await container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    const exitCode = waited.StatusCode;
    end = { status: exitCode === 0 ? 'succeeded' : 'failed', exitCode, logTail: demuxTail(raw), reason: exitCode === 0 ? null : `exited with ${exitCode}` };
  } catch (e) {
    // error text is stored and shown: a message that echoed an env line must not carry a secret
    end = { status: 'failed', exitCode: null, logTail: '', reason: `could not run: ${redactSecrets(e instanceof Error ? e.message : String(e), secrets, 4)}` };
  } finally {
    clearInterval(beat);
  }
  if (container) {
    await container.remove({ force: true }).catch((e) => {
      end.reason = `${end.reason ? `${end.reason}; ` : ''}its container ${run.containerName} could not be removed: ${String(e)}`;
    });
  }
  const ended = await s.serviceRuns.finish(run.id, end);
  await s.audit.record({
    ...AuditLog.actorFields(actor), action: 'finishServiceRun', resourceType: 'services', resourceId: run.serviceId, environmentId: run.environmentId,
    details: { runId: run.id, serverId: run.serverId, containerName: run.containerName, command: run.command, status: end.status, exitCode: end.exitCode },
  });  if (ended && onEnd) await onEnd(run, end);
}

/**
 * Stops a run someone else may be watching (a job's `replace`): its row is ended first with the
 * reason, so its watcher's own end (the exit code of the kill) does not overwrite it, then its
 * container is killed; the watcher removes it as after any end.
 */
export async function stopRun(s: Pick<Services, 'hosts' | 'serviceRuns'>, run: { runId: string; serverId: string | null; containerName: string }, reason: string): Promise<void> {
  await s.serviceRuns.finish(run.runId, { status: 'failed', exitCode: null, logTail: '', reason });
  if (!run.serverId) return;
  const docker = await s.hosts.docker(run.serverId);
  await docker.getContainer(run.containerName).kill().catch((e: { statusCode?: number }) => {
    if (e.statusCode !== 404 && e.statusCode !== 409) throw e; // gone or not running any more: stopped all the same
  });
}
