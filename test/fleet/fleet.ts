// Test helper: read the fleet that test/fleet/up.sh started, and poke its servers through server.sh.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { HostServer } from '../../controller/hosts/server.js';

export interface FleetServer {
  name: string;
  host: string;
  port: number;
  user: string;
  privateKeyPath: string;
  hostKeyFingerprint?: string;
  dockerSocket?: string;
}

export interface Fleet {
  fleetId: number;
  root: string;
  servers: FleetServer[];
  registry: { address: string; username?: string | null; password?: string | null };
  /** The same images behind basic auth (always on): for private-registry deploys. */
  authRegistry: { address: string; username: string; password: string };
  /** The same images behind the bearer-token flow: tokenServer issues tokens for the same user. */
  tokenRegistry: { address: string; tokenServer: string; username: string; password: string };
  /** An address the servers' dockerds trust as a plain-HTTP registry, where nothing listens until a test does. */
  spareRegistry: { address: string };
  images: { webV1: string; webV2: string; webUnhealthy: string; busybox: string };
  databaseUrl: string;
}

export type ServerAction = 'stop-ssh' | 'start-ssh' | 'stop-docker' | 'start-docker' | 'rotate-hostkey';

const fleetDir = dirname(fileURLToPath(import.meta.url));
const fleetId = (): string => process.env.FLEET_ID ?? '0';

/** FLEET_JSON, else $FLEET_ROOT/fleet.json, else /tmp/stevedore-fleet-$FLEET_ID/fleet.json. */
export function loadFleet(): Fleet {
  const root = process.env.FLEET_ROOT ?? `/tmp/stevedore-fleet-${fleetId()}`;
  const path = process.env.FLEET_JSON ?? join(root, 'fleet.json');
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Fleet;
  } catch (err) {
    throw new Error(`no test fleet at ${path}: run test/fleet/up.sh first (${String(err)})`);
  }
}

/** The fleet server as the host layer describes servers (ssh mode, pinned host key). */
export function toHostServer(s: FleetServer): HostServer {
  return { id: s.name, hostname: s.host, sshPort: s.port, sshUser: s.user, dockerMode: 'ssh', hostKeyFingerprint: s.hostKeyFingerprint ?? null };
}

export function privateKeyOf(s: FleetServer): string {
  return readFileSync(s.privateKeyPath, 'utf8');
}

const run = promisify(execFile);

/** Runs test/fleet/server.sh NAME ACTION for the current FLEET_ID; resolves to its stdout. */
export async function serverCtl(name: string, action: ServerAction): Promise<string> {
  const { stdout } = await run('bash', [join(fleetDir, 'server.sh'), name, action], { env: { ...process.env, FLEET_ID: fleetId() } });
  return stdout.trim();
}

/** Runs a command inside a server's namespaces, bypassing ssh (to check effects independently). */
export async function serverExec(name: string, argv: string[]): Promise<string> {
  const { stdout } = await run('bash', [join(fleetDir, 'server.sh'), name, 'exec', ...argv], { env: { ...process.env, FLEET_ID: fleetId() } });
  return stdout;
}
