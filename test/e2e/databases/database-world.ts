// What the database e2e tests share: the fleet's database images (built from this machine's own
// binaries on first use), a container's health check, and a backup or restore run to its end.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { serverExec } from '../../fleet/fleet.js';
import { until } from '../../support/until.js';
import type { World } from '../deploy/deploy-world.js';

const run = promisify(execFile);
/** A probe is an ssh exec or an API read; a backup on a loaded machine takes its time. */
export const WAIT = { timeoutMs: 120_000, everyMs: 200 };

const fleetEnv = () => readFileSync(path.join(process.env.FLEET_ROOT ?? `/tmp/stevedore-fleet-${process.env.FLEET_ID ?? 0}`, 'fleet.env'), 'utf8');

/** The image test/fleet/<script> pushes to the fleet registry (fleet.env names it `variable`), built on first use. */
export async function fleetImage(variable: 'FLEET_PG_IMAGE' | 'FLEET_MARIADB_IMAGE' | 'FLEET_CADDY_IMAGE', script: string): Promise<string> {
  if (!new RegExp(`^${variable}=`, 'm').test(fleetEnv())) await run('bash', [`test/fleet/${script}`], { env: process.env });
  return fleetEnv().match(new RegExp(`^${variable}=(.*)$`, 'm'))![1];
}

/** Waits for the container's own health check on s1 to pass. */
export const healthy = (container: string) => until(`${container} healthy`, async () =>
  (await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.Health.Status}}', container])).trim() === 'healthy', WAIT);

/** Polls a backup or restore (its API path) until it no longer runs, and answers it. */
export const finished = (w: World, apiPath: string) => until(apiPath, async () => {
  const res = await w.admin.get(apiPath);
  expect(res.status, res.text).to.equal(200);
  return res.body.status === 'running' ? undefined : res.body;
}, WAIT);
