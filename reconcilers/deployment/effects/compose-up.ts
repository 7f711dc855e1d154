// What both compose modes (compose-generated.ts, compose-external.ts) end with: `compose up` of the
// deployment's one service, then the health wait.
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { composeUp as composeUpArgv } from '../../../controller/hosts/commands/compose.js';
import type { ModeContext } from './deploy-mode.js';
import type { Healthy } from './wait-healthy.js';

/** Compose has no start-first: a service that asks for it is recreated stop-first, and told so. */
export async function noteStopFirst({ request: r }: Pick<ModeContext, 'request'>): Promise<void> {
  if (r.service.updateOrder === 'start-first') await r.log(`${r.deployment.containerName}: start-first needs direct mode; compose recreates it stop-first`);
}

export async function composeUp(s: Pick<Services, 'hosts'>, d: DeploymentRow, files: string[], project: string, env: Record<string, string>,
  log: (l: string) => Promise<void>, verify: () => Promise<Healthy>): Promise<Healthy> {
  const cli = await s.hosts.compose(d.serverId);
  // variables for the file's ${...} interpolation go through env(1): still one argv, no shell
  const envPrefix = Object.keys(env).length ? ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)] : [];
  const argv = [...envPrefix, ...composeUpArgv(cli.flavor, { projectName: project || d.containerName, file: files }, { services: [d.containerName], noDeps: true })];
  await log(`${cli.argv.join(' ')} up ${d.containerName}`);
  await s.hosts.exec(d.serverId, argv, { timeoutMs: 300_000 });
  return verify();
}
