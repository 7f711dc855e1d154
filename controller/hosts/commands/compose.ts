// docker compose commands. Servers have either the v2 plugin (`docker compose`) or the v1 binary
// (`docker-compose`); compose-detect.ts finds out once per server which one, and passes it here.

export type ComposeFlavor = 'plugin' | 'standalone';

export interface ComposeProject {
  /** -p: the project name also labels every container compose makes. */
  projectName: string;
  /** Absolute path of the compose file on the server; several are merged in order. */
  file: string | string[];
}

const base = (flavor: ComposeFlavor): string[] => (flavor === 'plugin' ? ['docker', 'compose'] : ['docker-compose']);
const project = (flavor: ComposeFlavor, p: ComposeProject): string[] =>
  [...base(flavor), '--project-name', p.projectName, ...[p.file].flat().flatMap((f) => ['--file', f])];

/** Exit 0 only when the v2 plugin exists. */
export const composePluginVersion = (): string[] => ['docker', 'compose', 'version', '--short'];
/** Exit 0 only when the v1 binary exists. */
export const composeStandaloneVersion = (): string[] => ['docker-compose', 'version', '--short'];

export function composeUp(flavor: ComposeFlavor, p: ComposeProject, opts: { services?: string[]; removeOrphans?: boolean; noDeps?: boolean } = {}): string[] {
  return [
    ...project(flavor, p), 'up', '--detach',
    ...(opts.removeOrphans ? ['--remove-orphans'] : []),
    // only the named services: a shared file's other services are not touched
    ...(opts.noDeps ? ['--no-deps'] : []),
    ...(opts.services ?? []),
  ];
}
export function composeDown(flavor: ComposeFlavor, p: ComposeProject, opts: { volumes?: boolean; timeoutSeconds?: number } = {}): string[] {
  return [
    ...project(flavor, p), 'down',
    ...(opts.volumes ? ['--volumes'] : []),
    ...(opts.timeoutSeconds === undefined ? [] : ['--timeout', String(opts.timeoutSeconds)]),
  ];
}
/** Validates and prints the resolved file; --quiet only validates. */
export const composeConfig = (flavor: ComposeFlavor, p: ComposeProject, opts: { quiet?: boolean } = {}): string[] =>
  [...project(flavor, p), 'config', ...(opts.quiet ? ['--quiet'] : [])];
export const composePull = (flavor: ComposeFlavor, p: ComposeProject): string[] => [...project(flavor, p), 'pull'];
export const composePs = (flavor: ComposeFlavor, p: ComposeProject): string[] => [...project(flavor, p), 'ps', '--all'];
