// Running a command in a deployment's container through Docker's exec API, over the server's
// pooled connection (hosts/docker-client.ts). Only a running container that is the deployment's
// own is ever entered: a container of the same name that another environment or deployment (or
// nobody in Stevedore) made is refused, as a deploy refuses to replace it.
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { conflict } from '../errors/app-error.js';
import { LABEL } from '../model/desired-container.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import { MANAGED_ROOT } from './compose/compose-path-rules.js';
import { inspectContainer } from './find-container.js';

/** What a non-interactive exec keeps of the output (stdout and stderr as they came, together). */
export const EXEC_MAX_OUTPUT_BYTES = 1024 * 1024;
export const EXEC_DEFAULT_TIMEOUT_SEC = 60;
export const EXEC_MAX_TIMEOUT_SEC = 3600;

export interface ExecTarget { containerId: string; containerName: string }

/**
 * Why this inspected container is not the deployment's, or null when it is: its ownership labels
 * name this deployment of this environment, or it is the one container (by id) the deployment
 * adopted, or it is an unlabelled container of a hand-written compose file (the rule
 * removeDeploymentContainer and the reconciler's ownershipConflict apply).
 */
export function notOwnedReason(d: Pick<DeploymentRow, 'id' | 'environmentId' | 'composePath' | 'adoptedContainerId'>,
  labels: Record<string, string>, containerId: string): string | null {
  if (labels[LABEL.deployment] === d.id && labels[LABEL.environment] === d.environmentId) return null;
  const unlabelled = !labels[LABEL.managed] && !labels[LABEL.deployment];
  if (unlabelled && d.adoptedContainerId && d.adoptedContainerId === containerId) return null;
  if (unlabelled && d.composePath !== null && !d.composePath.startsWith(`${MANAGED_ROOT}/`)) return null;
  if (unlabelled) return 'was not created by Stevedore';
  if (labels[LABEL.environment] && labels[LABEL.environment] !== d.environmentId) return 'belongs to another environment';
  return 'belongs to another deployment';
}

/** The deployment's running container, or a 409 that says why there is none to enter. */
export async function execTarget(docker: Docker, d: DeploymentRow): Promise<ExecTarget> {
  const info = await inspectContainer(docker, d.containerName);
  const where = `container ${d.containerName}`;
  if (!info) throw conflict(`${where} does not exist on its server`, 'Deploy the service first');
  const why = notOwnedReason(d, info.Config.Labels ?? {}, info.Id);
  if (why) throw conflict(`${where} ${why}; Stevedore runs commands only in its own containers`);
  if (!info.State.Running) throw conflict(`${where} is not running (${info.State.Status})`, 'Start or deploy it first');
  return { containerId: info.Id, containerName: d.containerName };
}

export interface ExecResult {
  /** null when the command had not ended at the timeout (it may still run in the container). */
  exitCode: number | null;
  output: string;
  truncated: boolean;
  timedOut: boolean;
}

/**
 * Runs `command` (an argument vector, never a shell line) in the container without a TTY and
 * waits for its end: stdout and stderr together in the order they came, the first
 * `maxOutputBytes` of them kept (the rest read and dropped, so the command is never blocked on a
 * full pipe), and its exit code. At `timeoutSec` the answer is given with what was read so far;
 * Docker has no way to stop an exec's process, so it is said to have timed out, not to have ended.
 */
export async function execCollect(docker: Docker, containerId: string, command: string[],
  opts: { timeoutSec?: number; maxOutputBytes?: number } = {}): Promise<ExecResult> {
  const max = opts.maxOutputBytes ?? EXEC_MAX_OUTPUT_BYTES;
  const exec = await docker.getContainer(containerId).exec({ Cmd: command, AttachStdout: true, AttachStderr: true, AttachStdin: false, Tty: false });
  const raw = (await exec.start({ Detach: false, Tty: false })) as unknown as Readable;
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  const sink = new PassThrough();
  sink.on('data', (b: Buffer) => {
    if (kept >= max) { truncated = true; return; }
    const part = b.length > max - kept ? b.subarray(0, max - kept) : b;
    if (part.length < b.length) truncated = true;
    chunks.push(part);
    kept += part.length;
  });
  docker.modem.demuxStream(raw, sink, sink);
  const ended = await new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), (opts.timeoutSec ?? EXEC_DEFAULT_TIMEOUT_SEC) * 1000);
    const done = () => { clearTimeout(timer); resolve(true); };
    raw.once('end', done);
    raw.once('close', done);
    raw.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
  if (!ended) raw.destroy();
  const output = Buffer.concat(chunks).toString('utf8');
  if (!ended) return { exitCode: null, output, truncated, timedOut: true };
  return { exitCode: await exitCodeOf(exec), output, truncated, timedOut: false };
}

/** The exec's exit code once Docker has recorded it (its stream may close a moment before). */
export async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let i = 0; i < 40; i++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null && info.ExitCode !== undefined) return info.ExitCode;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/** An interactive exec: a TTY with stdin, its raw stream, resize, and the exit code at the end. */
export interface TtySession {
  stream: Duplex;
  resize(cols: number, rows: number): Promise<void>;
  exitCode(): Promise<number | null>;
}

export async function execTty(docker: Docker, containerId: string, command: string[], size?: { cols: number; rows: number }): Promise<TtySession> {
  const exec = await docker.getContainer(containerId).exec({
    Cmd: command, AttachStdout: true, AttachStderr: true, AttachStdin: true, Tty: true, Env: ['TERM=xterm-256color'],
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as unknown as Duplex;
  const resize = async (cols: number, rows: number) => { await exec.resize({ w: cols, h: rows }); };
  if (size) await resize(size.cols, size.rows).catch(() => {});
  return { stream, resize, exitCode: () => exitCodeOf(exec) };
}
