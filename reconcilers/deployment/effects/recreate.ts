// Direct mode, stop-first (the default update order, and a start-first service whose container
// is not running, so nothing serves that a switch could keep): the container is recreated from
// the desired spec through the Docker API (direct-recreate.ts), the old one put back if the new
// one fails.
import type { DeployMode } from './deploy-mode.js';
import type { Healthy } from './wait-healthy.js';
import { recreateDirect } from './direct-recreate.js';
import { joinNetwork } from './start-first.js';

export const recreateMode: DeployMode = {
  name: 'recreate',
  async deploy({ docker, desired, exec, verify, log }) {
    let result: Healthy | null = null;
    await recreateDirect(docker, {
      desired, log,
      verify: async () => {
        result = await verify();
        // nothing served before: the new container takes the alias at once
        if (desired.networkAlias) await joinNetwork(docker, desired, exec);
      },
    });
    return result!;
  },
};
