// Starts the image reconciler: each image is looked at when its registry's refreshIntervalMinutes
// has passed (a sweep every minute finds the due ones) and when its auto-update plan ends; the
// check-updates routes call checkImage directly. A registry error is the image's status
// (UpdateAvailable Unknown, CheckFailed), not a queue retry: the next interval looks again.
import type { Services } from '../../controller/services.js';
import { isTerminalPlan, type PlanStatus } from '../../controller/model/plan-states.js';
import { isRegistryError } from '../../controller/registry/registry-error.js';
import { checkImage } from './check.js';
import { AUTO_UPDATE_TRIGGER } from './auto-update.js';

export const IMAGE_KIND = 'image';
export const imageKey = (id: string) => `${IMAGE_KIND}/${id}`;
const SWEEP_SEC = 60;

export async function startImageWorker(s: Services): Promise<() => Promise<void>> {
  s.queue.register(IMAGE_KIND, async (id) => {
    if (!(await s.containerImages.findById(id))) return;
    try {
      await checkImage(s, id);
    } catch (e) {
      if (!isRegistryError(e)) throw e;
      s.logger.warn('image update check failed', { containerImageId: id, error: e.message });
    }
  });
  s.scheduler.every('image-updates', SWEEP_SEC, async () => {
    for (const image of await s.containerImages.listDue()) s.queue.add(imageKey(image.id));
  });
  const unsubscribe = s.events.subscribe((e) => {
    if (e.type !== 'plan.updated' || e.data.trigger !== AUTO_UPDATE_TRIGGER || !isTerminalPlan(e.data.status as PlanStatus)) return;
    void s.containerImages.withPendingPlan(String(e.data.planId)).then(
      (ids) => ids.forEach((id) => s.queue.add(imageKey(id))),
      (err: unknown) => s.logger.warn('could not enqueue the image of a finished auto-update', { planId: e.data.planId, error: String(err) }),
    );
  });
  return async () => unsubscribe();
}
