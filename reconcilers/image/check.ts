// The image reconciler: observe the registry (tags, and the digests of the current and newest
// tag), record the digests, compute with the pure planImageUpdate(), set UpdateAvailable, announce
// a new update once (image.update_available), and with autoUpdate hand the new version to the
// one entrance. Runs on the registry's refreshIntervalMinutes and on demand (check-updates).
import type { Services } from '../../controller/services.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import { clientFor } from '../../controller/registry/client-for.js';
import { isRegistryError } from '../../controller/registry/registry-error.js';
import { getCondition, REASONS, setCondition, type Condition } from '../../controller/model/conditions.js';
import { planImageUpdate, type ImageUpdatePlan, type UpdateToDeploy } from './plan.js';
import { registryOf } from './registry-of.js';
import { currentTagOf } from './current-tag.js';
import { settleAutoUpdate, startAutoUpdate, type PendingAutoUpdate } from './auto-update.js';

export interface ImageCheckResult {
  checkedAt: string;
  currentTag: string | null;
  latestTag: string | null;
  updateAvailable: boolean;
  newTags: string[];
  changedDigests: ImageUpdatePlan['changedDigests'];
  /** The auto-update plan in flight: started by this check, or by an earlier one still running. */
  autoUpdatePlanId: string | null;
  /** Why auto-update did not deploy an available update. */
  held: string | null;
}

export interface ImageStatus {
  conditions?: Condition[];
  autoUpdate?: PendingAutoUpdate | null;
  /** An update found while the auto-update plan ran: deployed when it ends (a re-push is seen only once). */
  queuedUpdate?: UpdateToDeploy | null;
  lastError?: string | null;
  [k: string]: unknown;
}

/** One check of an image at a time in this process (the periodic one, a plan's end, a route): no two start an auto-update. */
const running = new Map<string, Promise<unknown>>();

export function checkImage(s: Services, imageId: string): Promise<ImageCheckResult> {
  const prev = running.get(imageId) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(() => checkImageNow(s, imageId));
  running.set(imageId, next);
  void next.catch(() => undefined).finally(() => { if (running.get(imageId) === next) running.delete(imageId); });
  return next;
}

async function checkImageNow(s: Services, imageId: string): Promise<ImageCheckResult> {
  let image = (await s.containerImages.findById(imageId))!;
  image = await settleAutoUpdate(s, image);
  const status = (image.status ?? {}) as ImageStatus;
  const checkedAt = new Date().toISOString();
  const currentTag = await currentTagOf(s, image);
  let plan: ImageUpdatePlan;
  try {
    const { registry, repository } = await registryOf(s, image);
    const client = clientFor(s, registry);
    const tags = await client.tags(repository);
    const inFlight = image.autoUpdate ? status.autoUpdate ?? null : null;
    const queued = image.autoUpdate ? status.queuedUpdate ?? null : null;
    const looked = new Set<string>();
    if (currentTag && tags.includes(currentTag)) looked.add(currentTag);
    if (queued && tags.includes(queued.tag)) looked.add(queued.tag);
    const digests: Record<string, { now: string; before?: string }> = {};
    const look = async (tag: string) => {
      const { digest } = await client.digest(repository, tag);
      digests[tag] = { now: digest, before: await s.containerImages.observeDigest(image.id, tag, digest) };
    };
    await Promise.all([...looked].map(look));
    const observed = () => planImageUpdate({ currentTag, policy: image.policy, tags, digests, failed: failedOf(image), inFlight, queued });
    const first = observed();
    if (first.latestTag && !digests[first.latestTag]) await look(first.latestTag);
    plan = observed();
  } catch (e) {
    if (!isRegistryError(e)) throw e;
    const conditions = setCondition(status.conditions ?? [], { type: 'UpdateAvailable', status: 'Unknown', reason: REASONS.CheckFailed, message: e.message });
    await s.containerImages.recordCheck(image.id, image.latestTag, { ...status, conditions, lastError: e.message });
    throw e;
  }

  const conditions = setCondition(status.conditions ?? [], conditionOf(image, currentTag, plan));
  const before = getCondition(status.conditions, 'UpdateAvailable');
  let pending = status.autoUpdate ?? null;
  if (image.autoUpdate && plan.deploy && !pending) pending = await startAutoUpdate(s, image, plan.deploy);
  const autoUpdatePlanId = pending?.planId ?? null;
  const queuedUpdate = image.autoUpdate ? plan.queued : null;
  if (queuedUpdate) s.logger.info('image update found while an auto-update runs; deployed when it ends', { containerImageId: image.id, tag: queuedUpdate.tag, planId: autoUpdatePlanId });
  await s.containerImages.recordCheck(image.id, plan.latestTag, { ...status, conditions, autoUpdate: pending, queuedUpdate, lastError: null });
  const now = getCondition(conditions, 'UpdateAvailable')!;
  // once per new finding: the condition turning True or saying something new, or a re-pushed tag
  if (now.status === 'True' && (before?.status !== 'True' || before.message !== now.message || plan.changedDigests.length > 0)) {
    await s.events.publish('image.update_available', image.environmentId, {
      containerImageId: image.id, imageName: image.imageName, currentTag, latestTag: plan.latestTag,
      changedTags: plan.changedDigests.map((c) => c.tag), message: now.message, autoUpdate: image.autoUpdate,
    });
  }
  return {
    checkedAt, currentTag, latestTag: plan.latestTag, updateAvailable: plan.updateAvailable, newTags: plan.newTags,
    changedDigests: plan.changedDigests, autoUpdatePlanId, held: plan.held,
  };
}

const failedOf = (i: ContainerImageRow) => (i.failedTag ? { tag: i.failedTag, digest: i.failedDigest } : null);

function conditionOf(image: ContainerImageRow, currentTag: string | null, plan: ImageUpdatePlan): Omit<Condition, 'lastTransitionTime'> {
  if (plan.latestTag) {
    return { type: 'UpdateAvailable', status: 'True', reason: REASONS.NewerTag, message: `${image.imageName}:${plan.latestTag} is newer than ${currentTag ?? 'no tag'}${plan.held ? ` (${plan.held})` : ''}` };
  }
  const repushed = plan.changedDigests.find((c) => c.tag === currentTag);
  if (repushed) {
    return { type: 'UpdateAvailable', status: 'True', reason: REASONS.TagRePushed, message: `${image.imageName}:${repushed.tag} was re-pushed (now ${repushed.digest.slice(0, 19)})${plan.held ? ` (${plan.held})` : ''}` };
  }
  return { type: 'UpdateAvailable', status: 'False', reason: REASONS.UpToDate, message: `${image.imageName}:${currentTag ?? '(no tag)'} is the newest under the policy` };
}
