// The one place that chooses how a deploy replaces a deployment's container (deploy-mode.ts).
//
// A new way is a new file and one line here. The switch through the ingress proxy, for example,
// is a module proxy-switch.ts exporting a DeployMode whose deploy(ctx) starts the new container
// beside the old one (nextContainerName, createOptionsOf(ctx.desired)), awaits
// ctx.verify(thatName) (a failure removes it and never touches the route), points the server's
// proxy route at it, drains the old one for ctx.desired.drainSec, then stops and removes it and
// renames the new one; and here, ahead of the start-first line, the one line
// `if (<the service has ingress> && observed.running) return proxySwitchMode;`.
// The shared steps (observe, ownership, pull, plan, config files) need no change.
import type { ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { ObservedContainer } from '../observe.js';
import type { DeployMode } from './deploy-mode.js';
import { composeExternalMode } from './compose-external.js';
import { composeGeneratedMode } from './compose-generated.js';
import { recreateMode } from './recreate.js';
import { startFirstMode } from './start-first.js';

export function modeFor(decision: Pick<ComposeDecision, 'mode'>, desired: Pick<DesiredContainer, 'updateOrder'>,
  observed: Pick<ObservedContainer, 'running'>): DeployMode {
  if (decision.mode === 'compose-generated') return composeGeneratedMode;
  if (decision.mode === 'compose-external') return composeExternalMode;
  // start-first keeps the old container serving; with none running there is nothing to keep
  if (desired.updateOrder === 'start-first' && observed.running) return startFirstMode;
  return recreateMode;
}
