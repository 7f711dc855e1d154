// Long synchronous work in slices: `await pace.turn()` between two units of work gives the event
// loop a turn (setImmediate: timers, I/O and other requests run) once the current slice has
// lasted `sliceMs`. A 1 MB manifest folder takes 0.7-2.5 s of parsing on this machine; in slices of
// 2 ms, /health and every other request keep answering meanwhile.
import { setImmediate as nextTurn } from 'node:timers/promises';

export class Pace {
  private sliceStart = performance.now();
  constructor(private readonly sliceMs: number) {}

  /** True when the current slice is used up (the caller yields, or runs on when it cannot). */
  due(): boolean {
    return performance.now() - this.sliceStart >= this.sliceMs;
  }

  /** Yields to the event loop when the slice is used up. */
  async turn(): Promise<void> {
    if (!this.due()) return;
    await nextTurn();
    this.sliceStart = performance.now();
  }
}

/** Runs a generator of steps to its end at once, and returns what it returns. */
export function runToEnd<R>(steps: Generator<void, R>): R {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs a generator of steps to its end, giving the event loop a turn whenever `pace` says so. */
export async function runPaced<R>(steps: Generator<void, R>, pace: Pace): Promise<R> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await pace.turn();
  }
}
