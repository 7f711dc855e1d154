// Every fault the chaos harness may draw, in one list: to add a fault, add its factory here.
// A fault whose available() is false here (netem without the kernel's qdisc, disk-full without a
// loop disk: docs/testing.md) is skipped by the harness.
import type { Fault } from './fault.js';
import type { Replica } from './replicas.js';
import { PostgresPair } from '../../test/support/postgres-pair.js';
import { controllerKill } from './faults/controller-kill.js';
import { dockerdRestart } from './faults/dockerd-restart.js';
import { postgresFailover } from './faults/postgres-failover.js';
import { postgresRestart } from './faults/postgres-restart.js';
import { sshdFreeze } from './faults/sshd-freeze.js';
import { serverFaults } from './faults/server-faults.js';

export interface FaultTargets { replicas: readonly Replica[]; pair: PostgresPair }

export function allFaults(t: FaultTargets): Fault[] {
  return [
    controllerKill(t.replicas),
    postgresRestart(t.pair),
    postgresFailover(t.pair),
    sshdFreeze(),
    dockerdRestart(),
    ...serverFaults(),
  ];
}

/** The faults' names, before any world exists (a factory only closes over its targets). */
export const faultNames = (): string[] => allFaults({ replicas: [], pair: new PostgresPair() }).map((f) => f.name);
