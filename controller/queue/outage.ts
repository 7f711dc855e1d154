// A background loop's view of a failing dependency (the database, a server): the first failure
// of an outage is logged, repeats are counted silently, and the recovery is logged once with the
// count, so a minute-long database restart gives two log lines instead of one per tick.
import type { Logger } from '../logger.js';

export class Outage {
  private failures = 0;
  private since = 0;

  constructor(private readonly logger: Logger, private readonly what: string) {}

  /** True while the last attempt failed. */
  get ongoing(): boolean {
    return this.failures > 0;
  }

  /** Call after a failed attempt; logs only the first of an outage. */
  failed(e: unknown, fields: Record<string, unknown> = {}): void {
    if (this.failures++ === 0) {
      this.since = Date.now();
      this.logger.warn(`${this.what} failed; retrying with backoff`, { ...fields, error: errorText(e) });
    }
  }

  /** Call after a successful attempt; logs the end of an outage once. */
  ok(): void {
    if (this.failures === 0) return;
    this.logger.info(`${this.what} recovered`, { failedAttempts: this.failures, outageMs: Date.now() - this.since });
    this.failures = 0;
  }

  /** How long to wait before the next attempt: doubles per failure, from `baseMs` up to `maxMs`. */
  delayMs(baseMs: number, maxMs = 30_000): number {
    if (this.failures === 0) return baseMs;
    return Math.min(maxMs, baseMs * 2 ** Math.min(this.failures - 1, 20));
  }
}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}
