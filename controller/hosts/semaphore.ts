// Bounds concurrent channels per ssh connection: sshd refuses sessions past MaxSessions, and a
// burst of hundreds of channels on one connection starves everything behind it.
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async acquire(): Promise<() => void> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // hand the slot straight to the next waiter, so `active` never drops below what runs
      if (next) next();
      else this.active--;
    };
  }
}
