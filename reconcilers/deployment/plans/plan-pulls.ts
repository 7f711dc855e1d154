// The image pulls of a plan start together when the plan starts, on every server it deploys to,
// instead of each at the beginning of its own step: a rolling plan (one step at a time) or a later
// stage (dependents after their dependencies) then finds its image already there or on its way.
// A step awaits the pull of its server and image (the same one, never a second), and fails with
// its error as before. Pulling changes no container: a plan stopped early leaves images pulled on
// servers it never reached, nothing else.
import type { Services } from '../../../controller/services.js';
import type { DeploymentPlanRow } from '../../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../../controller/store/repositories/plan-steps.js';
import { pullOnServer } from '../../../controller/deploy/pull-image.js';

/** At most this many pulls of one plan at once (servers pull concurrently, each registry serves them). */
const PULLS_AT_ONCE = 8;

export class PlanPulls {
  private readonly pulls = new Map<string, Promise<unknown>>();

  /** The pull of `image` on `serverId`: the one already started, or `pull` now. */
  once<T>(serverId: string, image: string, pull: () => Promise<T>): Promise<T> {
    const key = `${serverId}\u0000${image}`;
    let p = this.pulls.get(key);
    if (!p) {
      p = pull();
      // a pull nobody awaits any more (the plan stopped) must not be an unhandled rejection
      p.catch(() => undefined);
      this.pulls.set(key, p);
    }
    return p as Promise<T>;
  }

  /** Starts the pulls of every step still to run, in step order, PULLS_AT_ONCE at a time. */
  prefetch(s: Pick<Services, 'config' | 'containerImages' | 'deployments' | 'hosts' | 'logger' | 'registries' | 'secretBox' | 'services'>,
    plan: DeploymentPlanRow, steps: PlanStepRow[]): void {
    const todo = steps.filter((x) => x.deploymentId && x.imageTag && (x.status === 'pending' || x.status === 'running'));
    const worker = async () => {
      for (let st = todo.shift(); st; st = todo.shift()) {
        const d = await s.deployments.findById(st.deploymentId!);
        const service = d && (await s.services.findById(d.serviceId));
        const image = service?.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
        if (!d || !image) continue;
        const ref = `${image.imageName}:${st.imageTag}`;
        // settled either way: the step that needs it reports its failure
        await this.once(d.serverId, ref, () => pullOnServer(s, d, image, ref)).catch(() => undefined);
      }
    };
    for (let i = 0; i < PULLS_AT_ONCE; i++) {
      void worker().catch((e: unknown) => s.logger.warn('image prefetch of a plan stopped', { planId: plan.id, error: String(e) }));
    }
  }
}
