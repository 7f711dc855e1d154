// The shape every fault of the chaos harness (bench/chaos.ts) has, so that the harness picks
// faults at random without knowing what each one does. A fault is a value made by a factory that
// closes over what it needs (the fleet, the controller replicas, the database pair); the harness
// only draws one, injects it, waits, restores it and measures how long the system takes to recover.
import type { Fleet } from '../../test/fleet/fleet.js';

/** What every fault may use: the fleet and the harness's seeded random source. */
export interface FaultWorld {
  fleet: Fleet;
  /** Seeded: the same --seed draws the same faults, targets and durations. */
  random(): number;
  /** One element of xs, drawn with random(). */
  pick<T>(xs: readonly T[]): T;
  log(line: string): void;
}

/** A fault in place: what it hit, and how to take it away again. */
export interface Injected {
  /** What was hit, e.g. a server name or a replica, printed in the table. */
  target: string;
  /** Anything worth printing beside the target (e.g. "delay 300ms loss 20%"). */
  detail?: string;
  /** Undoes the fault; idempotent, and safe to call after a failed inject. */
  restore(): Promise<void>;
}

export interface Fault {
  /** Short name printed in the table, e.g. 'link-cut', 'netem', 'disk-full'. */
  name: string;
  /** Whether this fault can run here (e.g. `tc` installed, a standby running); false skips it. */
  available(world: FaultWorld): Promise<boolean>;
  /** Injects the fault on a target drawn with world.random and resolves once it is in place. */
  inject(world: FaultWorld): Promise<Injected>;
}
