// Preview environments per pull request (docs/git-sources.md#previews), reconciled like the source
// itself: a signed pull_request webhook stores the desired preview (its head, open or closed;
// generation + 1) before it is answered and queues `preview/<sourceId>/<number>`; a pass takes the
// row under a lease, re-reads everything and does the next step, and ends with one status write.
// Open: the environment `<env>-pr-<number>` (parent linked) exists, the pull request's head
// (`refs/pull/<number>/head` of the source's repository) is applied into it through the manifests
// path, rewritten by preview-manifests.ts, and the plans it caused are waited for: ready only
// once every one succeeded. Closed (or past its TTL): everything it applied is pruned (plans of
// remove steps), what is still labelled with it on the parent's servers is removed, its volumes
// too, then the environment and the row. Every step reads what is there first: a pass killed at
// any point is done again by the next one, and doing one again changes nothing.
import { join } from 'node:path';
import { rm as rmDir } from 'node:fs/promises';
import type { Services } from '../../services.js';
import type { GitSourceRow } from '../../store/repositories/git-sources.js';
import type { EnvironmentRow } from '../../store/repositories/environments.js';
import type { PreviewOutcome, PreviewRow, PreviewState } from '../../store/repositories/previews.js';
import type { ReconcileResult } from '../../queue/work-queue.js';
import type { PullRequestEvent } from '../../webhooks/git-push.js';
import { REASONS, setCondition, type Condition } from '../../model/conditions.js';
import { isTerminalPlan } from '../../model/plan-states.js';
import { LABEL } from '../../model/desired-container.js';
import { matchesSelector } from '../../placement/labels.js';
import { dockerVolumeName } from '../../model/volume-mount.js';
import { rm } from '../../hosts/commands/docker.js';
import { volumeList, volumeRm } from '../../hosts/commands/volume.js';
import { messageOf } from '../../deploy/message-of.js';
import { runApply } from '../run-apply.js';
import { formatError } from '../types.js';
import { IS_SOPS } from '../sops/decrypt-files.js';
import { postCommitStatus, type CommitState } from './commit-status.js';
import { fetchNow } from './sync-source.js';
import { displayUrl } from './git-url.js';
import { previewEnvironmentName, previewExpiry, previewUrl } from './preview-config.js';
import type { PreviewPlacement } from './preview-manifests.js';

export const PREVIEW_KIND = 'preview';
export const previewKey = (sourceId: string, number: number) => `${PREVIEW_KIND}/${sourceId}/${number}`;
/** A preview's own fetch cache: its pull request's head never shares the source's FETCH_HEAD. */
export const previewCacheDir = (s: Services, previewId: string) => join(s.config.stateDir, 'git-cache', `preview-${previewId}`);
/** The commit-status context of a parent environment's previews (the source's own is `stevedore/<env>`). */
export const previewContext = (parent: string) => `stevedore/preview/${parent}`;
/** GitHub serves every pull request's head under this ref of the base repository, forks' too. */
export const pullRequestRef = (number: number) => `refs/pull/${number}/head`;

const POLL_MS = 1000;

/**
 * Stores what a pull_request delivery asks for and queues its key; resolves once it is stored
 * (what the webhook's 202 promises). A `closed` for a pull request that has no preview stores nothing.
 */
export async function requestPreview(s: Services, source: GitSourceRow, pr: PullRequestEvent): Promise<PreviewRow | undefined> {
  const row = await s.previews.desire({
    sourceId: source.id, environmentId: source.environmentId, number: pr.number, headSha: pr.headSha, headRef: pr.headRef, open: pr.action !== 'closed',
  });
  if (row) s.queue.add(previewKey(row.sourceId, row.number));
  return row;
}

/** Whether a pass has something to do: a desired state no pass ended at, a rollout to wait for, a teardown under way. */
const due = (row: PreviewRow) => row.observedGeneration !== row.generation || row.state === 'pending' || row.state === 'deleting';

export async function reconcilePreview(s: Services, id: string): Promise<ReconcileResult | void> {
  const slash = id.lastIndexOf('/');
  const [sourceId, number] = [id.slice(0, slash), Number(id.slice(slash + 1))];
  let row = await s.previews.ofSourceNumber(sourceId, number);
  if (!row) return;
  const source = await s.gitSources.findById(sourceId);
  if (row.open && source) {
    // level-triggered TTL: counted from the pull request's last change; previews turned off go too
    const expiry = previewExpiry(source.previews, row.desiredAt);
    if (!source.previews?.pullRequests || (expiry && expiry.getTime() <= Date.now())) row = (await s.previews.expire(row.id)) ?? row;
  }
  if (!due(row)) return;
  const { owner, leaseMs } = s.plans;
  const held = await s.previews.claim(row.id, owner, leaseMs);
  if (!held) return { requeueAfterMs: Math.min(POLL_MS, (await s.previews.leaseLeftMs(row.id)) + 50) };
  const renewal = setInterval(() => void s.previews.renew(held.id, owner, leaseMs).catch(() => undefined), Math.max(100, leaseMs / 3));
  renewal.unref();
  try {
    const pass = held.open && source?.previews ? await openPass(s, held, source) : await closePass(s, held, source);
    if (pass.removed) {
      if (await s.previews.removeHeld(held.id, owner)) await s.events.publish('preview.deleted', held.environmentId, pass.event ?? {});
      return;
    }
    const after = await s.previews.finish(held.id, owner, pass.outcome!);
    if (after && pass.outcome!.state !== held.state && (after.state === 'ready' || after.state === 'failed')) {
      await s.events.publish(`preview.${after.state}`, held.environmentId, pass.event ?? {});
    }
    if (after && (due(after) || pass.requeue)) return { requeueAfterMs: POLL_MS };
  } finally {
    clearInterval(renewal);
  }
}

interface Pass { outcome?: PreviewOutcome; removed?: boolean; requeue?: boolean; event?: Record<string, unknown> }

/** The conditions a pass writes (pure): Ready, Progressing and Degraded from the state it leaves. */
export function previewConditions(before: readonly Condition[], state: PreviewState, reason: string, message: string, now = new Date()): Condition[] {
  let list = setCondition(before, state === 'ready'
    ? { type: 'Ready', status: 'True', reason: REASONS.PreviewReady, message }
    : { type: 'Ready', status: 'False', reason, message }, now);
  list = setCondition(list, state === 'pending' || state === 'deleting'
    ? { type: 'Progressing', status: 'True', reason, message }
    : { type: 'Progressing', status: 'False', reason: REASONS.Idle, message: 'nothing running' }, now);
  return setCondition(list, state === 'failed'
    ? { type: 'Degraded', status: 'True', reason, message }
    : { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: 'nothing failed' }, now);
}

function ended(row: PreviewRow, state: PreviewState, reason: string, message: string, values: Omit<PreviewOutcome, 'observedGeneration' | 'conditions' | 'state' | 'reason'> = {}): PreviewOutcome {
  return { ...values, state, reason: state === 'ready' ? null : message, observedGeneration: row.generation, conditions: previewConditions(row.conditions ?? [], state, reason, message) };
}

/** The preview's environment: the one it made (or, after a crash before its write, the one of its name and parent), else a new one. */
async function environmentOf(s: Services, row: PreviewRow, parent: EnvironmentRow): Promise<EnvironmentRow> {
  const name = previewEnvironmentName(parent.name, row.number);
  const known = row.previewEnvironmentId ? await s.environments.findById(row.previewEnvironmentId) : await s.environments.findByName(name);
  if (known) {
    if (known.parentEnvironmentId !== parent.id) throw new Error(`an environment named ${name} already exists and is not a preview of ${parent.name}`);
    return known;
  }
  return s.transaction(async (trx) => {
    const env = await s.environments.insert({
      name, parentEnvironmentId: parent.id, description: `Preview of pull request #${row.number} (${parent.name})`, source: { kind: 'preview', sourceId: row.sourceId, number: row.number },
    }, trx);
    await s.settings.insertDefaults(env.id, trx);
    return env;
  });
}

/** A preview follows its parent's container policy: copied at each pass (settings, not secrets), so a change of the parent's reaches it. */
async function followPolicy(s: Services, parentId: string, envId: string): Promise<void> {
  const ops = await s.settings.get<Record<string, unknown>>(parentId, 'operations');
  const mine = await s.settings.get<Record<string, unknown>>(envId, 'operations');
  const want = { containerPolicy: ops.containerPolicy ?? 'baseline', allowedHostPaths: ops.allowedHostPaths ?? [] };
  if (JSON.stringify([mine.containerPolicy ?? 'baseline', mine.allowedHostPaths ?? []]) !== JSON.stringify([want.containerPolicy, want.allowedHostPaths])) {
    await s.settings.patch(envId, 'operations', want);
  }
}

async function openPass(s: Services, row: PreviewRow, source: GitSourceRow): Promise<Pass> {
  const parent = (await s.environments.findById(row.environmentId))!;
  const config = source.previews!;
  const url = previewUrl(config, row.number);
  const as = { context: previewContext(parent.name), targetUrl: url };
  const event = (extra: Record<string, unknown> = {}) => ({ sourceId: source.id, environment: parent.name, number: row.number, headSha: row.headSha, url, ...extra });
  const status = async (commit: string, state: CommitState, description: string) => {
    const key = `${commit}:${state}`;
    if (row.postedStatus === key) return key;
    await postCommitStatus(s, source, commit, state, description, as);
    return key;
  };
  const fail = async (reason: string, message: string, values: Omit<PreviewOutcome, 'observedGeneration' | 'conditions' | 'state' | 'reason'> = {}): Promise<Pass> => {
    s.logger.warn('previews: a preview failed', { environment: parent.name, number: row.number, reason, error: message });
    const commit = values.appliedCommit ?? row.headSha;
    return { outcome: ended(row, 'failed', reason, message, { ...values, postedStatus: await status(commit, 'failure', message) }), event: event({ reason: message }) };
  };

  let env: EnvironmentRow;
  try {
    env = await environmentOf(s, row, parent);
  } catch (e) {
    return fail(REASONS.ApplyFailed, messageOf(e));
  }
  await followPolicy(s, parent.id, env.id);
  const envValues = { previewEnvironmentId: env.id };

  // a commit this generation already applied: its plans decide (level-triggered, whichever process looks)
  if (row.observedGeneration === row.generation && row.appliedCommit) {
    const plans = await s.plans.repo.findByIds(row.plans);
    if (plans.some((p) => !isTerminalPlan(p.status))) return { outcome: { ...ended(row, 'pending', REASONS.RollingOut, `rolling out ${row.appliedCommit.slice(0, 12)}`), ...envValues } };
    const bad = plans.find((p) => p.status !== 'succeeded');
    if (bad) return fail(REASONS.RolloutFailed, `plan ${bad.name} ${bad.status.replace('_', ' ')}${bad.error ? `: ${bad.error}` : ''}`, { ...envValues, appliedCommit: row.appliedCommit });
    const message = `preview of ${row.appliedCommit.slice(0, 12)} is ready${url ? ` at ${url}` : ''}`;
    return { outcome: ended(row, 'ready', REASONS.PreviewReady, message, { ...envValues, postedStatus: await status(row.appliedCommit, 'success', message) }), event: event({ message }) };
  }

  let fetched;
  try {
    fetched = await fetchNow(s, source, { cacheDir: previewCacheDir(s, row.id), ref: pullRequestRef(row.number) });
  } catch (e) {
    return fail(REASONS.FetchFailed, `fetch of ${pullRequestRef(row.number)} of ${displayUrl(source.url)} failed: ${messageOf(e)}`, envValues);
  }
  const commit = fetched.commit;
  const servers = (await s.servers.listByEnvironment(parent.id)).filter((sv) => matchesSelector(config.serverSelector, sv.labels));
  if (!servers.length) {
    return fail(REASONS.NoServers, `no server of ${parent.name} matches previews.serverSelector`, { ...envValues, appliedCommit: commit });
  }
  await status(commit, 'pending', `building the preview ${env.name}`);
  const placement: PreviewPlacement = {
    parentEnvironment: parent.name, environment: env.name, number: row.number, servers: servers.map((sv) => sv.name),
    hostTemplate: config.hostTemplate ?? null, allowedSecrets: config.secrets ?? [], parentSecretKeys: await s.configStore.secrets.keysOf(parent.id),
  };
  let result;
  try {
    result = await runApply(s, 'git', {
      // SOPS files are left out: they are encrypted to the parent, and a preview reads no secret but by reference
      files: fetched.files.filter((f) => !IS_SOPS.test(f.path)), gitCommit: commit, prune: true,
      scope: { origin: `git:${env.id}`, environment: env.name, repository: displayUrl(source.url) },
      preview: { placement, serverIds: Object.fromEntries(servers.map((sv) => [sv.name, sv.id])) },
    });
  } catch (e) {
    return fail(REASONS.ApplyFailed, `apply of ${commit.slice(0, 12)} failed: ${messageOf(e)}`, { ...envValues, appliedCommit: commit });
  }
  if (!result.ok) {
    const lines = result.errors.map(formatError);
    // the first error leads: a commit status shows the first 140 characters
    return fail(REASONS.ManifestsInvalid, `${lines[0]} (commit ${commit.slice(0, 12)} was not applied to ${env.name}: ${lines.length} error${lines.length === 1 ? '' : 's'})`,
      { ...envValues, appliedCommit: commit, plans: [] });
  }
  const values = { ...envValues, appliedCommit: commit, plans: result.plans, postedStatus: `${commit}:pending`, serverIds: [...new Set([...row.serverIds ?? [], ...servers.map((sv) => sv.id)])] };
  if (!result.plans.length) {
    const message = `preview of ${commit.slice(0, 12)} is ready${url ? ` at ${url}` : ''} (nothing to roll out)`;
    return { outcome: ended(row, 'ready', REASONS.PreviewReady, message, { ...values, postedStatus: await status(commit, 'success', message) }), event: event({ message }) };
  }
  return { outcome: ended(row, 'pending', REASONS.RollingOut, `rolling out ${commit.slice(0, 12)}: ${result.plans.length} plan${result.plans.length === 1 ? '' : 's'}`, values), requeue: true };
}

/**
 * Teardown, one step per pass: prune what the preview applied (its containers go through plans of
 * remove steps), wait for those plans, then remove what is still labelled with the preview on the
 * parent's servers and its volumes, and delete the environment and the row.
 */
async function closePass(s: Services, row: PreviewRow, source: GitSourceRow | undefined): Promise<Pass> {
  const parent = await s.environments.findById(row.environmentId);
  const env = row.previewEnvironmentId ? await s.environments.findById(row.previewEnvironmentId)
    : parent ? await s.environments.findByName(previewEnvironmentName(parent.name, row.number)) : undefined;
  const why = row.closeReason === 'expired' ? 'its TTL ran out' : 'the pull request was closed';
  const deleting = (message: string, values: Omit<PreviewOutcome, 'observedGeneration' | 'conditions' | 'state' | 'reason'> = {}): Pass =>
    ({ outcome: ended(row, 'deleting', REASONS.TearingDown, message, values), requeue: true });
  const event = { sourceId: row.sourceId, environment: parent?.name, number: row.number, reason: why, message: `preview #${row.number} of ${parent?.name ?? 'the environment'} deleted: ${why}` };
  if (!env || env.parentEnvironmentId !== row.environmentId) {
    await rmDir(previewCacheDir(s, row.id), { recursive: true, force: true });
    return { removed: true, event };
  }
  const pending = await s.plans.repo.findByIds(row.plans);
  if (pending.some((p) => !isTerminalPlan(p.status))) return deleting(`${why}: removing its containers`);
  // once: a prune that could not delete everything leaves the rest to the environment's deletion below
  if (row.state !== 'deleting' && (await s.services.listByEnvironment(env.id)).length) {
    const result = await runApply(s, 'git', {
      files: [], gitCommit: row.appliedCommit, prune: true, scope: { origin: `git:${env.id}`, environment: env.name, repository: source ? displayUrl(source.url) : 'git' },
    });
    // what a prune could not delete goes with the environment's rows below
    return deleting(`${why}: removing its containers`, { plans: result.ok ? result.plans : [] });
  }
  // what is still on the servers it was placed on under the preview's labels (a plan that failed, a crash in between): removed by label, never by name;
  // a server that cannot be reached keeps the preview deleting (and saying why) until it can
  for (const server of await s.servers.findByIds(row.serverIds ?? [])) {
    try {
      const docker = await s.hosts.docker(server.id);
      for (const c of await docker.listContainers({ all: true, filters: { label: [`${LABEL.environment}=${env.id}`] } })) await s.hosts.exec(server.id, rm(c.Id, { force: true }));
      const prefix = dockerVolumeName(env.id, '');
      const names = (await s.hosts.exec(server.id, volumeList())).stdout.split('\n').map((l) => l.trim()).filter((n) => n.startsWith(prefix));
      for (const name of names) await s.hosts.exec(server.id, volumeRm(name));
    } catch (e) {
      return deleting(`${why}: could not clean ${server.name} up yet: ${messageOf(e)}`);
    }
  }
  await s.environments.delete(env.id);
  await rmDir(previewCacheDir(s, row.id), { recursive: true, force: true });
  return { removed: true, event };
}
