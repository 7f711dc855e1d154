// The spec's compose path rules, as one pure decision per deploy:
// 1. a composePath already set is never rewritten (the field), whatever autoManageCompose says;
// 2. autoManageCompose off and no path: restart directly (Docker API), no compose file;
// 3. autoManageCompose on and no path: write the generated file and record its path;
// 4. every automatic path change is audited with details.source = 'generator' (caller does it);
// 5. the document must define a service keyed by containerName (validate-compose.ts);
// 6. a compose file shared by several deployments is validated against the disk, never written.
import { posix } from 'node:path';

/** Where generated compose files live on a server: one directory per container. */
export const MANAGED_ROOT = '/opt/stevedore/deployments';

export const managedComposePath = (containerName: string) => posix.join(MANAGED_ROOT, containerName, 'docker-compose.yml');
/** Compose mode's environment: a second compose file (0600), so no value passes through an env file parser. */
export const envComposePathFor = (composePath: string) => posix.join(posix.dirname(composePath), 'docker-compose.stevedore-env.yml');
/** Where an attached config file is written on the server; it is bind-mounted read-only at targetPath. */
export const configFileHostPath = (containerName: string, targetPath: string) => posix.join(MANAGED_ROOT, containerName, 'files', targetPath);

export type ComposeDecision =
  | { mode: 'direct' }
  /** Stevedore owns the file at `path`: write the generated document there. */
  | { mode: 'compose-generated'; path: string; recordPath: boolean }
  /** Someone else owns the file (hand-written or shared): read, validate, never write. */
  | { mode: 'compose-external'; path: string; shared: boolean };

export interface ComposeFacts {
  composePath: string | null;
  autoManageCompose: boolean;
  containerName: string;
  /** How many deployments on the same server use the same composePath (including this one). */
  deploymentsSharingPath: number;
}

export function decideCompose(f: ComposeFacts): ComposeDecision {
  if (f.composePath === null) {
    if (!f.autoManageCompose) return { mode: 'direct' };
    return { mode: 'compose-generated', path: managedComposePath(f.containerName), recordPath: true };
  }
  if (f.deploymentsSharingPath > 1) return { mode: 'compose-external', path: f.composePath, shared: true };
  // our own generated file (recorded by rule 3) stays ours: regenerating it is how a new tag lands
  if (f.composePath === managedComposePath(f.containerName)) return { mode: 'compose-generated', path: f.composePath, recordPath: false };
  return { mode: 'compose-external', path: f.composePath, shared: false };
}
