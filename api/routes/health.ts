import type { Services } from '../../controller/services.js';
import { AGENT_VERSION, CLI_VERSION } from '../../controller/version.js';
import { route, result } from '../http/route.js';
import { manifestsStatusOf } from '../../controller/manifests/status.js';
import { enumOf, object, str } from '../http/schema.js';

export default function healthRoutes(s: Services) {
  /** null when no MANIFESTS_DIR; otherwise the revision the store follows and the last attempt's outcome. */
  const manifestsHealth = () => {
    if (!s.config.manifestsDir) return null;
    const st = manifestsStatusOf(s);
    return {
      watching: st.watching,
      lastAppliedRevision: st.lastApplied?.revision ?? null,
      lastAttemptOk: st.lastAttempted?.ok ?? null,
      lastAttemptErrors: st.lastAttempted?.errors.length ?? 0,
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
    manifests: { type: 'object', nullable: true }, degraded: { type: 'object', nullable: true },
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
        const body = {
          // a Degraded object makes the application degraded too; only a lost database is a 503
          status: dbOk && !degraded?.count ? 'ok' : 'degraded',
          version: s.config.version,
          agentVersion: AGENT_VERSION,
          cliVersion: CLI_VERSION,
          database: dbOk ? 'ok' : 'unreachable',
          manifests: manifestsHealth(),
          degraded,
        };
        return result(dbOk ? 200 : 503, body);
      },
    }),
  ];
}
