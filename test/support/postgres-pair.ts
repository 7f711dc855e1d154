// A PostgreSQL primary and its streaming standby (test/support/postgres-pair.sh) driven from a
// test: stopped, crashed, promoted, the way an operator's failover goes.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const script = fileURLToPath(new URL('./postgres-pair.sh', import.meta.url));

export interface PairUrls {
  /** the primary alone */
  primary: string;
  /** the standby alone (the primary once promoted) */
  standby: string;
  /** both, primary first, target_session_attrs=read-write: what the controller is given */
  hostList: string;
}

export class PostgresPair {
  /** One pair per fleet: its ports follow FLEET_ID, away from the fleets' and the unit tests' PostgreSQL. */
  constructor(readonly port = 26400 + 2 * Number(process.env.FLEET_ID ?? 0)) {}

  private async pair(action: string, ...args: string[]): Promise<string> {
    const { stdout } = await run('bash', [script, action, ...args], { env: { ...process.env, PAIR_PORT: String(this.port) } });
    return stdout;
  }

  async up(): Promise<PairUrls> {
    const out = Object.fromEntries((await this.pair('up')).trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    return { primary: out.PRIMARY_URL!, standby: out.STANDBY_URL!, hostList: out.DATABASE_URL! };
  }

  /** A clean shutdown of the primary (`pg_ctl stop -m fast`): it sends the standby all its WAL first. */
  stopPrimary = () => this.pair('stop-primary');
  /** The primary crashes (`-m immediate`). */
  killPrimary = () => this.pair('kill-primary');
  /** `pg_ctl promote` on the standby: it accepts writes from now on. */
  promote = () => this.pair('promote');
  down = () => this.pair('down');

  // The two nodes by name (their directories; their roles swap at each failover): for the chaos
  // harness, which fails over again and again (bench/chaos/faults/postgres-failover.ts).
  /** What the node is now: it accepts writes (primary), it replays WAL (standby), or it does not answer. */
  async role(node: PairNode): Promise<'primary' | 'standby' | 'down'> {
    return (await this.pair('role', node)).trim() as 'primary' | 'standby' | 'down';
  }
  /** The node whose role is primary, if one is. */
  async primaryNode(): Promise<PairNode | null> {
    for (const node of PAIR_NODES) if (await this.role(node) === 'primary') return node;
    return null;
  }
  stopNode = (node: PairNode) => this.pair('stop', node);
  startNode = (node: PairNode) => this.pair('start', node);
  promoteNode = (node: PairNode) => this.pair('promote', node);
  /** The node becomes a streaming standby of the other again (a pg_basebackup of it replaces its data). */
  rejoin = (node: PairNode) => this.pair('rejoin', node);
  portOf = (node: PairNode) => (node === 'primary' ? this.port : this.port + 1);
}

export type PairNode = 'primary' | 'standby';
export const PAIR_NODES: readonly PairNode[] = ['primary', 'standby'];
export const otherNode = (node: PairNode): PairNode => (node === 'primary' ? 'standby' : 'primary');
