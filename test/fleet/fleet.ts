// Test helper: read the fleet that test/fleet/up.sh started, and poke its servers through server.sh.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

export type ServerAction = 'stop-ssh' | 'start-ssh' | 'stop-docker' | 'start-docker' | 'rotate-hostkey'
  // the chaos faults (bench/chaos/faults/): each undone by its pair, idempotently
  | 'link-down' | 'link-up' | 'netem-clear' | 'disk-fill' | 'disk-unfill' | 'loop-disk-off';
/** server.sh actions that take arguments. */
export type ServerActionWithArgs =
  | { action: 'netem'; delayMs: number; jitterMs: number; lossPct: number }
  | { action: 'loop-disk'; mb: number };

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

/**
 * Runs test/fleet/server.sh NAME ACTION [ARGS] for the current FLEET_ID (or the given fleet's id
 * and root); resolves to its stdout.
 */
export async function serverCtl(name: string, action: ServerAction | ServerActionWithArgs, fleet?: Pick<Fleet, 'fleetId' | 'root'>): Promise<string> {
  const argv = typeof action === 'string' ? [action]
    : action.action === 'netem' ? ['netem', ...[action.delayMs, action.jitterMs, action.lossPct].map((n) => String(Math.round(n)))]
    : ['loop-disk', String(Math.round(action.mb))];
  const env = fleet ? { ...process.env, FLEET_ID: String(fleet.fleetId), FLEET_ROOT: fleet.root } : { ...process.env, FLEET_ID: fleetId() };
  const { stdout } = await run('bash', [join(fleetDir, 'server.sh'), name, ...argv], { env });
  return stdout.trim();
}

/** Whether the server's Docker root is a loop disk that can be filled (FLEET_LOOP_DISK_MB, server.sh loop-disk). */
export function hasLoopDisk(fleet: Pick<Fleet, 'root'>, name: string): boolean {
  return existsSync(join(fleet.root, name, 'disk.dev'));
}

/**
 * Whether `tc` and the kernel's netem qdisc are there: tried on the loopback of a network namespace
 * of its own, which goes away with the command (a kernel built without CONFIG_NET_SCH_NETEM says
 * "Specified qdisc kind is unknown").
 */
export async function netemSupported(): Promise<boolean> {
  try {
    await run('unshare', ['--net', '--', 'tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'netem', 'delay', '1ms']);
    return true;
  } catch {
    return false;
  }
}

/** Runs a command inside a server's namespaces, bypassing ssh (to check effects independently). */
export async function serverExec(name: string, argv: string[]): Promise<string> {
  const { stdout } = await run('bash', [join(fleetDir, 'server.sh'), name, 'exec', ...argv], { env: { ...process.env, FLEET_ID: fleetId() } });
  return stdout;
}
