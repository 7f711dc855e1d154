// The controller replicas the chaos harness runs (real `bin/stevedore.js serve` processes on one
// database), with what the invariants need to know of them: when each was down by the harness's
// own hand (a request to a replica killed meanwhile may drop its connection; to any other, never),
// and their memory.
import { readFileSync } from 'node:fs';
import { Controller } from '../../test/e2e/chaos/controller-child.js';

export class Replica {
  readonly controller: Controller;
  /** [from, to] epoch ms: from just before a SIGKILL to the restarted process listening. */
  readonly downWindows: Array<[number, number]> = [];
  private downSince: number | null = null;
  peakRssMiB = 0;

  constructor(readonly name: string, env: Record<string, string>) {
    this.controller = new Controller(env);
  }

  get url(): string {
    return this.controller.url;
  }

  get running(): boolean {
    return this.controller.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.controller.start();
    if (this.downSince !== null) this.downWindows.push([this.downSince, Date.now()]);
    this.downSince = null;
  }

  async kill(): Promise<void> {
    this.downSince = Date.now();
    await this.controller.kill('SIGKILL');
  }

  /** Whether the replica was down (by the harness) at any moment of [from, to]. */
  wasDownDuring(from: number, to: number): boolean {
    if (this.downSince !== null && to >= this.downSince) return true;
    return this.downWindows.some(([a, b]) => from <= b && to >= a);
  }

  /** Resident set size now, in MiB (Linux /proc); 0 while the process is away. */
  sampleRss(): number {
    const pid = this.controller.child?.pid;
    if (!pid || !this.running) return 0;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      const mib = m ? Math.round(Number(m[1]) / 1024) : 0;
      this.peakRssMiB = Math.max(this.peakRssMiB, mib);
      return mib;
    } catch {
      return 0;
    }
  }
}
