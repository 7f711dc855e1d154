// Every fault the chaos harness may draw, in one list. To add faults, add their factories here:
// the server network and disk faults (bench/chaos/faults/server-faults.ts, `serverFaults()`) join
// as one more line, `...serverFaults(),`.
import type { Fault } from './fault.js';
import type { Replica } from './replicas.js';
import { PostgresPair } from '../../test/support/postgres-pair.js';
import { controllerKill } from './faults/controller-kill.js';
import { dockerdRestart } from './faults/dockerd-restart.js';
import { postgresFailover } from './faults/postgres-failover.js';
import { postgresRestart } from './faults/postgres-restart.js';
import { sshdFreeze } from './faults/sshd-freeze.js';

export interface FaultTargets { replicas: readonly Replica[]; pair: PostgresPair }

export function allFaults(t: FaultTargets): Fault[] {
  return [
    controllerKill(t.replicas),
    postgresRestart(t.pair),
    postgresFailover(t.pair),
    sshdFreeze(),
    dockerdRestart(),
  ];
}

/** The faults' names, before any world exists (a factory only closes over its targets). */
export const faultNames = (): string[] => allFaults({ replicas: [], pair: new PostgresPair() }).map((f) => f.name);
