/**
 * When the watcher applies, from the file events it sees. Pure: the caller owns the timer and
 * the clock. The first change of a quiet folder arms a short leading window (settleMs) that joins
 * the rest of the same save; anything else (events while the folder is busy or an apply runs, a
 * removal) re-arms a trailing window, so a burst coalesces into one apply quietMs after its
 * last event.
 */
export class SaveCoalescer {
  private lastEventAt = Number.NEGATIVE_INFINITY;
  private armed: 'leading' | 'trailing' | null = null;

  constructor(private readonly quietMs: number, private readonly settleMs: number) {}

  /**
   * An event at `now` (ms), `running` whether an apply runs now. Returns the delay to (re)arm the
   * apply with, or null to keep the armed one.
   */
  event(kind: string, now: number, running: boolean): number | null {
    const quiet = now - this.lastEventAt >= this.quietMs && !running && this.armed === null;
    this.lastEventAt = now;
    // A checkout deletes files before it writes their successors: an apply in between would see
    // their objects gone (deleted, with pruning). A removal always waits for quiet, even inside
    // a leading window.
    const removal = kind === 'unlink' || kind === 'unlinkDir';
    if (this.armed === 'leading' && !removal) return null; // part of the save already armed
    this.armed = quiet && !removal ? 'leading' : 'trailing';
    return this.armed === 'leading' ? this.settleMs : this.quietMs;
  }

  /** The armed apply fired (it runs, or joins the one running). */
  fired(): void {
    this.armed = null;
  }
}
