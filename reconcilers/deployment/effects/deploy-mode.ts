// How a deploy replaces a deployment's container, one module a way (recreate.ts, start-first.ts,
// compose-generated.ts, compose-external.ts), behind this one interface. deploy-deployment.ts runs
// the steps every way shares (render, settle leftovers, observe, ownership, pull, plan, config
// files) and hands the change to the mode mode-for.ts chooses; a mode only replaces the container
// and answers with what it observed healthy.
import type Docker from 'dockerode';
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../../controller/store/repositories/services.js';
import type { Argv } from '../../../controller/hosts/shell-quote.js';
import type { ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import type { ComposeFiles } from '../../../controller/deploy/compose/generate-compose.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { DesiredReads } from '../load-desired.js';
import type { ObservedContainer } from '../observe.js';
import type { PlanPulls } from '../plans/plan-pulls.js';
import type { RevisionSpec } from '../../service/revision-spec.js';
import type { Healthy } from './wait-healthy.js';

export interface DeployRequest {
  service: ServiceRow;
  deployment: DeploymentRow;
  imageName: string;
  imageTag: string;
  pull: boolean;
  /** false: keep the environment file already on the server (compose mode). */
  generate?: boolean;
  planId: string | null;
  /** Called once, just before the first change on the server (a rollback of a step that never got
   *  this far has nothing to undo). */
  onTouch?: (mode: ComposeDecision['mode']) => Promise<void>;
  log: (line: string) => Promise<void>;
  /** The plan's pulls, started when it started (plans/plan-pulls.ts): the step awaits its own among them. */
  pulls?: PlanPulls;
  /** The revision to render (its template, tag and config files); null: the service's row as it is now. */
  revision?: RevisionSpec | null;
}

/** What a deploy uses: reading the desired container, the server, the image, the audit. */
export type DeployServices = DesiredReads & Pick<Services, 'audit' | 'certificates' | 'config' | 'environments' | 'hosts' | 'plans' | 'registries' | 'secretBox'>;

/** What the shared steps know when they hand over: the container is to be created or replaced. */
export interface ModeContext {
  s: DeployServices;
  request: DeployRequest;
  decision: ComposeDecision;
  /** Rendered, with the pulled image's id. */
  desired: DesiredContainer;
  /** What Docker reported under the canonical name before anything changed (ownership checked). */
  observed: ObservedContainer;
  /** The generated compose file and environment file (compose-generated only), not yet written. */
  files: ComposeFiles | null;
  docker: Docker;
  /** Runs one argv on the deployment's server. */
  exec: (argv: Argv) => Promise<unknown>;
  /** Resolves when the named container (the canonical name by default) is healthy, throws when not. */
  verify: (containerName?: string) => Promise<Healthy>;
  /** Reports the first change on the server (DeployRequest.onTouch); see DeployMode.validatesFirst. */
  touch: () => Promise<void>;
  log: (line: string) => Promise<void>;
}

export interface DeployMode {
  /** For logs and tests: recreate, start-first, compose-generated, compose-external. */
  readonly name: string;
  /** true: the mode checks what it runs before its first change and calls ctx.touch() itself;
   *  otherwise the shared steps report the touch before handing over. */
  readonly validatesFirst?: boolean;
  /** Replaces the container; resolves with what was observed healthy, throws leaving the previous
   *  version serving where the mode can (each module says how). */
  deploy(ctx: ModeContext): Promise<Healthy>;
}
