import type { ApplyResult } from './apply.js';

export interface ApplyRecord {
  at: string;
  trigger: 'watch' | 'api' | 'startup';
  revision: ApplyResult['revision'];
  ok: boolean;
  counts: ApplyResult['counts'];
  /** At most 100 errors, each with file, line, column and path. */
  errors: ApplyResult['errors'];
  plans: string[];
  message?: string;
}

/**
 * What the watcher and the apply route last did: `lastAttempted` may have failed while
 * `lastApplied` still names the revision the store follows (as Flux keeps them apart).
 */
export class ManifestsStatus {
  lastAttempted: ApplyRecord | null = null;
  lastApplied: ApplyRecord | null = null;
  watching = false;

  record(r: ApplyRecord): void {
    const trimmed = { ...r, errors: r.errors.slice(0, 100) };
    this.lastAttempted = trimmed;
    if (r.ok) this.lastApplied = trimmed;
  }
}

const statuses = new WeakMap<object, ManifestsStatus>();
/** One status per running service (keyed by its Services object, so tests can run several). */
export function manifestsStatusOf(services: object): ManifestsStatus {
  let st = statuses.get(services);
  if (!st) statuses.set(services, (st = new ManifestsStatus()));
  return st;
}
