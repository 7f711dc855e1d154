import type { Services } from '../../controller/services.js';
import { AppError } from '../../controller/errors/app-error.js';
import { trackerRefused } from '../../controller/admin/error-tracking.js';
import { lastTypeSync } from '../../controller/catalog/shipped-types-sync.js';
import { route } from '../http/route.js';
import { arrayOf, bool, int, nullable, object, str, timestamp } from '../http/schema.js';

const testRead = object({ at: timestamp, ok: bool, status: nullable(int()), eventId: str(), message: str() });
const statusRead = object({
  configured: bool, enabled: bool, endpoint: nullable(str()), projectId: nullable(str()), environment: nullable(str()),
  lastTest: nullable(testRead),
});
const outcome = object({ added: arrayOf(str()), unchanged: arrayOf(str()), customized: arrayOf(str()) });

/** Error tracking (a Sentry-compatible DSN) and the start-up sync of shipped types ("plugins"). */
export default function adminErrorTrackingRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/admin/error-tracking', operationId: 'getErrorTrackingStatus', tag: 'admin', access: 'admin',
      summary: 'Whether errors are reported to a Sentry-compatible tracker: endpoint and project (never the DSN key), last test',
      response: statusRead,
      handler: async () => s.errorTracking.status(),
    }),

    route<{ dsn?: string | null; enabled?: boolean; environment?: string | null }>({
      method: 'PUT', path: '/api/admin/error-tracking', operationId: 'setErrorTracking', tag: 'admin', access: 'admin',
      summary: 'Set the DSN (write-only; null removes it), turn reporting on or off, name the environment events carry. '
        + 'While enabled, unexpected API failures (500) are reported',
      body: object({
        dsn: nullable(str({ minLength: 1, maxLength: 2048, writeOnly: true })), enabled: bool, environment: nullable(str({ minLength: 1, maxLength: 64 })),
      }, [], { minProperties: 1 }),
      readOnly: ['configured', 'endpoint', 'projectId', 'lastTest'],
      response: statusRead,
      async handler(ctx, { body }) {
        const out = await s.errorTracking.configure(body);
        ctx.state.audit = { resourceType: 'settings', resourceId: 'error-tracking', details: { fields: Object.keys(body), configured: out.configured } };
        return out;
      },
    }),

    route({
      method: 'POST', path: '/api/admin/error-tracking/test', operationId: 'testErrorTracking', tag: 'admin', access: 'admin',
      summary: 'Send one test event to the DSN: 200 {ok: true, status, eventId} when the tracker accepted it, else 502 '
        + 'SERVICE_UNAVAILABLE saying what it answered; 409 without a DSN',
      body: object({}), response: testRead, errors: [409, 502],
      async handler(ctx) {
        const t = await s.errorTracking.test(ctx.state.actor!.name);
        ctx.state.audit = { resourceType: 'settings', resourceId: 'error-tracking', details: { ok: t.ok, status: t.status, eventId: t.eventId } };
        if (!t.ok) throw trackerRefused(t);
        return t;
      },
    }),

    route({
      method: 'GET', path: '/api/admin/plugins/sync', operationId: 'getPluginSyncResult', tag: 'admin', access: 'admin',
      summary: 'Outcome of the start-up sync of the shipped service and database types: added (new in this release), '
        + 'unchanged, customized (changed by an admin, kept; reset restores them)',
      response: object({ ranAt: timestamp, ok: bool, error: nullable(str()), serviceTypes: outcome, databaseTypes: outcome }),
      errors: [404],
      async handler() {
        const r = lastTypeSync(s);
        if (!r) throw new AppError('NOT_FOUND', 'The shipped-type sync has not run yet');
        return r;
      },
    }),
  ];
}
