import type { Services } from '../services.js';
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

/** An object whose desired state could not be reached: what `GET /api/manifests/status` and `stevedore diff` show. */
export interface DegradedObject {
  kind: 'Service';
  environment: string;
  name: string;
  reason: string;
  message: string;
  desiredImageTag: string | null;
  /** Tags the deployments run (recorded by the last rollout that reached them). */
  runningImageTags: string[];
}

export async function degradedObjects(s: Services): Promise<DegradedObject[]> {
  const rows = await s.services.listDegraded();
  return Promise.all(rows.map(async (svc) => {
    const c = (svc.conditions ?? []).find((x) => x.type === 'Degraded')!;
    const running = (await s.deployments.listByService(svc.id)).map((d) => d.imageTag).filter((t): t is string => !!t);
    return {
      kind: 'Service' as const, environment: svc.environmentName, name: svc.name, reason: c.reason, message: c.message,
      desiredImageTag: svc.imageTag, runningImageTags: [...new Set(running)],
    };
  }));
}
