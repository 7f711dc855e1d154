// The one way tests wait: poll for a positive signal instead of sleeping.

export interface UntilOptions {
  /** How long to keep polling before failing (default 10 s). */
  timeoutMs?: number;
  /** The pause between two polls (default 50 ms). */
  everyMs?: number;
  /**
   * Keep polling through a probe that throws, and name the last error on timeout. For waits across
   * a fault (a restarting controller refuses connections); elsewhere a throw fails at once, so an
   * assertion inside a probe is never retried into passing.
   */
  retryErrors?: boolean;
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Polls `probe` until it returns a truthy value and resolves with that value (a predicate that
 * holds resolves with `true`); fails after the timeout with a message naming `what` was awaited.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, options: UntilOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 10_000, everyMs = 50, retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as Truthy<T>;
    } catch (e) {
      if (!retryErrors) throw e;
      lastError = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await sleep(everyMs);
  }
}
