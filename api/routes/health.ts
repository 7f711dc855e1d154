import type { Services } from '../../controller/services.js';
import { AGENT_VERSION, CLI_VERSION } from '../../controller/version.js';
import { route, result } from '../http/route.js';
import { manifestsStatusOf } from '../../controller/manifests/status.js';
import { enumOf, int, nullable, object, str } from '../http/schema.js';
import { syncStateOf, type SyncState } from '../../controller/manifests/git/sync-state.js';

export default function healthRoutes(s: Services) {
  /**
   * null when there is neither a manifests folder (MANIFESTS_DIR) nor a Git source; otherwise the
   * folder's revision and last attempt (when there is a folder) and how many Git sources are in
   * each sync state (counts only: this route is public, it never names an environment or a URL).
   */
  const manifestsHealth = async (dbOk: boolean) => {
    // with the database lost the sources cannot be read: null, never a count of none
    const sources = dbOk ? await s.gitSources.listAll().catch(() => null) : null;
    if (!s.config.manifestsDir && !sources?.length) return null;
    let gitSources: Record<'total' | SyncState, number> | null = null;
    if (sources) {
      gitSources = { total: sources.length, Synced: 0, OutOfSync: 0, Syncing: 0, Failed: 0 };
      for (const row of sources) gitSources[syncStateOf(row)]++;
    }
    if (!s.config.manifestsDir) return { gitSources };
    const st = manifestsStatusOf(s);
    return {
      watching: st.watching,
      lastAppliedRevision: st.lastApplied?.revision ?? null,
      lastAttemptOk: st.lastAttempted?.ok ?? null,
      lastAttemptErrors: st.lastAttempted?.errors.length ?? 0,
      gitSources,
    };
  };
  const degradedCounts = async () => {
    const rows = await s.services.listDegraded();
    const reasons: Record<string, number> = {};
    for (const r of rows) {
      const reason = (r.conditions ?? []).find((c) => c.type === 'Degraded')?.reason ?? 'Unknown';
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    return { count: rows.length, reasons };
  };
  const healthRead = object({
    status: enumOf('ok', 'degraded'), version: str(), agentVersion: str(), cliVersion: str(), database: enumOf('ok', 'unreachable'),
    manifests: nullable(object({
      watching: { type: 'boolean' }, lastAppliedRevision: { type: 'object', nullable: true }, lastAttemptOk: { type: 'boolean', nullable: true },
      lastAttemptErrors: int(0),
      gitSources: {
        ...nullable(object({ total: int(0), Synced: int(0), OutOfSync: int(0), Syncing: int(0), Failed: int(0) }, ['total', 'Synced', 'OutOfSync', 'Syncing', 'Failed'])),
        description: 'How many environments\' Git sources are in each sync state (docs/git-sources.md); null while the database cannot be reached',
      },
    }, ['gitSources'], { description: 'null: no manifests folder and no Git source. The folder\'s fields only with MANIFESTS_DIR' })),
    degraded: { type: 'object', nullable: true },
  });
  return [
    route({
      method: 'GET', path: '/health', operationId: 'getHealth', tag: 'system', access: 'public',
      summary: 'Application, agent and CLI versions and database reachability; needs no token',
      response: healthRead,
      // the same body when the database is lost: a load balancer reads the status, a person the why
      alsoAnswers: { 503: { description: 'The database cannot be reached (database: unreachable)', response: healthRead } },
      async handler() {
        const dbOk = await s.databaseOk();
        // public: how many objects are Degraded and why, never their names
        const degraded = dbOk ? await degradedCounts().catch(() => null) : null;
        const manifests = await manifestsHealth(dbOk);
        // a Git source whose last sync failed is not applied as committed: degraded, as a Degraded object is
        const failing = (manifests?.gitSources?.Failed ?? 0) > 0;
        const body = {
          // a Degraded object makes the application degraded too; only a lost database is a 503
          status: dbOk && !degraded?.count && !failing ? 'ok' : 'degraded',
          version: s.config.version,
          agentVersion: AGENT_VERSION,
          cliVersion: CLI_VERSION,
          database: dbOk ? 'ok' : 'unreachable',
          manifests,
          degraded,
        };
        return result(dbOk ? 200 : 503, body);
      },
    }),
  ];
}
