import type { Services } from '../services.js';
import type { CommandTypeRow, CommandTypesRepository } from '../store/repositories/command-types.js';
import { DEFAULT_DATABASE_TYPES, DEFAULT_SERVICE_TYPES, type TypeDefinition } from './default-types.js';

export interface TypeSyncOutcome {
  /** Shipped types this installation lacked, now added. */
  added: string[];
  /** Shipped types present as shipped. */
  unchanged: string[];
  /** Shipped types an admin changed: kept as they are (reset restores them). */
  customized: string[];
}

export interface TypeSyncResult {
  ranAt: string;
  ok: boolean;
  error: string | null;
  serviceTypes: TypeSyncOutcome;
  databaseTypes: TypeSyncOutcome;
}

/** The shipped definition of a type as stored, for comparing a row with what ships. */
export function definitionOf(row: CommandTypeRow): TypeDefinition {
  return {
    name: row.name,
    description: row.description ?? '',
    ...(row.defaultImage && { defaultImage: row.defaultImage }),
    ...(row.defaultPort != null && { defaultPort: row.defaultPort }),
    commands: row.commands,
  };
}

/** JSON with object keys sorted: the database (jsonb) does not keep the order they were written in. */
const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
};
const same = (a: TypeDefinition, b: TypeDefinition) => canonical(a) === canonical(b);

async function syncKind(repo: CommandTypesRepository, shipped: TypeDefinition[]): Promise<TypeSyncOutcome> {
  const out: TypeSyncOutcome = { added: [], unchanged: [], customized: [] };
  for (const def of shipped) {
    if (await repo.insertShippedIfMissing(def)) {
      out.added.push(def.name);
      continue;
    }
    const row = await repo.findByName(def.name);
    if (row && same(definitionOf(row), def)) out.unchanged.push(def.name);
    else out.customized.push(def.name);
  }
  return out;
}

const results = new WeakMap<Services, TypeSyncResult>();

/**
 * The shipped service and database types (the "plugins" a release brings) are synced into the
 * catalog at start-up: a type a newer release ships is added; a type already present is never
 * overwritten (an admin may have changed it; reset restores it). The outcome is kept for
 * GET /api/admin/plugins/sync.
 */
export async function syncShippedTypes(s: Services): Promise<TypeSyncResult> {
  const ranAt = new Date().toISOString();
  const empty = (): TypeSyncOutcome => ({ added: [], unchanged: [], customized: [] });
  let result: TypeSyncResult;
  try {
    result = {
      ranAt, ok: true, error: null,
      serviceTypes: await syncKind(s.serviceTypes, DEFAULT_SERVICE_TYPES),
      databaseTypes: await syncKind(s.databaseTypes, DEFAULT_DATABASE_TYPES),
    };
  } catch (e) {
    // the service still starts: the catalog keeps what it had, and the status says why
    result = { ranAt, ok: false, error: e instanceof Error ? e.message : String(e), serviceTypes: empty(), databaseTypes: empty() };
    s.logger.warn('shipped type sync failed', { error: result.error });
  }
  results.set(s, result);
  return result;
}

export const lastTypeSync = (s: Services): TypeSyncResult | null => results.get(s) ?? null;
