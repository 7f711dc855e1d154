import type { Services } from '../services.js';
import type { ManifestHandOff } from './manifest-hand-off.js';
import type { PlanRunner } from './plan-runner.js';

/** Starts a background worker with the service; returns how to stop it (controller/workers/index.ts). */
type Start = (s: Services) => Promise<(() => Promise<void>) | void>;

/**
 * The reconcilers, as the process builds and runs them. Imports run one way (reconcilers/ imports
 * controller/, never the reverse), so controller/ reaches them only through this: the composition
 * root (bin/ and the tests) hands reconcilers/wiring.ts's RECONCILERS to startService
 * (controller/serve.ts), as it hands in the API's createApp.
 */
export interface Reconcilers {
  /** `Services.plans`: the plan engine over these services. */
  planEngine(s: Services): PlanRunner;
  /** `Services.handOff`: where a manifest apply hands changed services and removed deployments. */
  manifestHandOff(s: Services): ManifestHandOff;
  /** Their background workers, started in the order of controller/workers/index.ts. */
  workers: {
    /** Heartbeat of running plans and recovery of plans a stopped process left running. */
    plans: Start;
    /** The deployment reconciler (Docker events, plan ends, resync). */
    deployment: Start;
    /** The image reconciler (update checks, auto-update); leader only. */
    image: Start;
    /** The certificate reconciler (ACME orders and renewals per environment and host). */
    certificate: Start;
    /** Scheduled jobs' occurrences, on the shared scheduler (leader only). */
    jobs: Start;
    /** The proxy reconciler: the ingress proxy of every server (Docker events, plan ends, resync). */
    proxy: Start;
  };
}
