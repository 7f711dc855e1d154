// The one place that chooses how a deploy replaces a deployment's container (deploy-mode.ts).
//
// A new way is a new file and one line here, as the switch through the ingress proxy is
// (proxy-switch.ts: the new container beside the old one, healthy, the proxy's route observed on
// it, the old one drained for drainSec, stopped). The shared steps (observe, ownership, pull,
// plan, config files) need no change.
import type { ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { ObservedContainer } from '../observe.js';
import type { DeployMode } from './deploy-mode.js';
import { composeExternalMode } from './compose-external.js';
import { composeGeneratedMode } from './compose-generated.js';
import { recreateMode } from './recreate.js';
import { startFirstMode } from './start-first.js';
import { proxySwitchMode, switchesThroughProxy } from './proxy-switch.js';
import type { ServiceRow } from '../../../controller/store/repositories/services.js';

export function modeFor(decision: Pick<ComposeDecision, 'mode'>, desired: Pick<DesiredContainer, 'updateOrder'>,
  observed: Pick<ObservedContainer, 'running'>, service?: Pick<ServiceRow, 'ingress' | 'ports'>): DeployMode {
  if (decision.mode === 'compose-generated') return composeGeneratedMode;
  if (decision.mode === 'compose-external') return composeExternalMode;
  // with an ingress the proxy's route moves once the new container is healthy; with none running there is nothing to keep
  if (service && switchesThroughProxy(service) && observed.running) return proxySwitchMode;
  // start-first keeps the old container serving; with none running there is nothing to keep
  if (desired.updateOrder === 'start-first' && observed.running) return startFirstMode;
  return recreateMode;
}
