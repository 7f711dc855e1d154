// autoUpdate: the new version goes to every linked service through the one entrance
// (reconcilers/entrance.ts), as one plan in dependency order with health gates and automatic
// rollback, like any deploy. The plan's outcome is read back on the image's next reconcile
// (level-triggered: the worker enqueues the image when the plan ends, and a restart still finds
// the plan id in the image's status): success makes the tag current; a rollback remembers the
// version (tag and digest) so it is not tried again until a newer one appears.
import type { Services } from '../../controller/services.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import { isTerminalPlan } from '../../controller/model/plan-states.js';
import { requestDeploy } from '../entrance.js';
import { isNewer } from '../../controller/images/version-policy.js';
import type { ImageUpdatePlan } from './plan.js';

export interface PendingAutoUpdate { planId: string; tag: string; digest: string | null }

export const AUTO_UPDATE_TRIGGER = 'image-auto-update';

/** Deploys `tag` to every service linked to the image; null when no service is linked. */
export async function deployImage(s: Services, image: ContainerImageRow, tag: string, opts: { trigger: string; createdBy: string | null; name?: string }) {
  const services = await s.services.listByImage(image.id);
  if (!services.length) return null;
  return requestDeploy(s, {
    environmentId: image.environmentId, items: services.map((x) => ({ serviceId: x.id, imageTag: tag })),
    name: opts.name ?? `${opts.trigger}: ${image.imageName}:${tag}`, autoRollback: true, trigger: opts.trigger, createdBy: opts.createdBy,
  });
}

export async function startAutoUpdate(s: Services, image: ContainerImageRow, deploy: NonNullable<ImageUpdatePlan['deploy']>): Promise<PendingAutoUpdate | null> {
  const plan = await deployImage(s, image, deploy.tag, {
    trigger: AUTO_UPDATE_TRIGGER, createdBy: null,
    name: `auto-update: ${image.imageName}:${deploy.tag}${deploy.why === 'digest-changed' ? ' (re-pushed)' : ''}`,
  });
  if (!plan) return null;
  s.logger.info('image auto-update started', { containerImageId: image.id, tag: deploy.tag, planId: plan.id });
  return { planId: plan.id, tag: deploy.tag, digest: deploy.digest };
}

/** Reads the outcome of the auto-update plan in the image's status, once it has ended; returns the image as it is now. */
export async function settleAutoUpdate(s: Services, image: ContainerImageRow): Promise<ContainerImageRow> {
  const pending = (image.status as { autoUpdate?: PendingAutoUpdate | null })?.autoUpdate;
  if (!pending) return image;
  const plan = await s.plans.repo.findById(pending.planId);
  if (plan && !isTerminalPlan(plan.status)) return image;
  await s.transaction(async (trx) => {
    if (plan?.status === 'succeeded') {
      await s.containerImages.setCurrentTag(image.id, pending.tag, trx);
      // the failed version is forgotten once it or a newer one runs (a re-push of an older tag does not count)
      const past = image.failedTag && (pending.tag === image.failedTag || isNewer(pending.tag, image.failedTag, image.policy ?? undefined));
      if (past) await s.containerImages.rememberFailed(image.id, null, null, trx);
    } else if (plan && plan.status !== 'cancelled') {
      await s.containerImages.rememberFailed(image.id, pending.tag, pending.digest, trx);
      s.logger.warn('image auto-update failed; the version is held back until a newer one appears', { containerImageId: image.id, tag: pending.tag, planStatus: plan.status });
    }
    await s.containerImages.update(image.id, { status: JSON.stringify({ ...image.status, autoUpdate: null }) as never }, trx);
  });
  return (await s.containerImages.findById(image.id))!;
}
