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
  return [
    route({
      method: 'GET', path: '/health', operationId: 'getHealth', tag: 'system', access: 'public',
      summary: 'Application, agent and CLI versions and database reachability; needs no token',
      response: object({ status: enumOf('ok', 'degraded'), version: str(), agentVersion: str(), cliVersion: str(), database: enumOf('ok', 'unreachable'), manifests: { type: 'object', nullable: true } }),
      errors: [503],
      async handler() {
        const dbOk = await s.databaseOk();
        const body = {
          status: dbOk ? 'ok' : 'degraded',
          version: s.config.version,
          agentVersion: AGENT_VERSION,
          cliVersion: CLI_VERSION,
          database: dbOk ? 'ok' : 'unreachable',
          manifests: manifestsHealth(),
        };
        return result(dbOk ? 200 : 503, body);
      },
    }),
  ];
}
