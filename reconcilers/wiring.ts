import type { Reconcilers } from '../controller/model/reconcilers.js';
import { PlanEngine } from './deployment/plans/plan-engine.js';
import { startPlanWorker } from './deployment/plans/plan-recovery.js';
import { startDeploymentWorker } from './deployment/deployment-worker.js';
import { startImageWorker } from './image/image-worker.js';
import { startCertificateWorker } from './certificate/certificate-worker.js';
import { startJobScheduler } from './job/job-runs.js';
import { startProxyWorker } from './proxy/proxy-worker.js';
import { removeContainers, startPlans } from './manifest-hand-off.js';
import { syncPlacements } from './service/placement.js';

/**
 * The reconcilers as controller/ runs them (controller/model/reconcilers.ts): the composition
 * root (bin/stevedore.js through the server bundle, test/support/test-service.ts) hands this to
 * startService, so imports run one way, from reconcilers/ down to controller/.
 */
export const RECONCILERS: Reconcilers = {
  planEngine: (s) => new PlanEngine(s),
  manifestHandOff: (s) => ({
    startPlans: (changed, revision) => startPlans(s, changed, revision),
    removeContainers: (removed, revision) => removeContainers(s, removed, revision),
    placeServices: async (environmentIds) => {
      const plans: string[] = [];
      for (const id of environmentIds) plans.push(...(await syncPlacements(s, id)).planIds);
      return plans;
    },
  }),
  workers: {
    plans: startPlanWorker, deployment: startDeploymentWorker, image: startImageWorker, certificate: startCertificateWorker, jobs: startJobScheduler,
    proxy: startProxyWorker,
  },
};
