// A service's revisions: list (newest first), one with its rendered spec (secrets are references
// and versions by construction), the difference of any two, and revert to one (a request through
// the entrance like a deploy).
import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { toPlan } from '../../controller/store/repositories/deployment-plans.js';
import { toStep } from '../../controller/store/repositories/plan-steps.js';
import { toRevisionSummary, type ServiceRevisionRow } from '../../controller/store/repositories/service-revisions.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { requestRevert } from '../../reconcilers/entrance.js';
import { revisionChanges, unifiedRevisionDiff, type RevisionSpec } from '../../reconcilers/service/revision-spec.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, INT32_MAX, listOf, nullable, object, paginationQuery, str, timestamp, uuid, type Schema } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { serviceOf } from './deploy-loaders.js';
import { planRead, WAITED_ANSWER } from './plan-schemas.js';

const summaryFields = {
  revision: int(1), createdAt: timestamp, createdBy: nullable(str()), source: str(), imageTag: nullable(str()), specHash: str(),
  outcome: enumOf('pending', 'succeeded', 'failed', 'superseded'), reason: nullable(str()), revertedFrom: nullable(int(1)), planId: nullable(uuid),
};
const summary: Schema = object(summaryFields, ['revision', 'createdAt', 'source', 'specHash', 'outcome']);
const detail: Schema = object({ ...summaryFields, spec: { type: 'object', description: 'The rendered spec: secrets as ${secret:KEY@version}, never values' } },
  ['revision', 'createdAt', 'source', 'specHash', 'outcome', 'spec']);
const diffAnswer: Schema = object({
  from: int(1), to: int(1),
  changes: arrayOf(object({ path: str(), from: {}, to: {} }, ['path', 'from', 'to'])),
  unified: str(),
}, ['from', 'to', 'changes', 'unified']);

/** A revision number from a path or query: a positive integer as written, nothing else. */
function revisionNumber(v: string | undefined): number | null {
  return v !== undefined && /^[1-9][0-9]{0,8}$/.test(v) ? Number(v) : null;
}

export default function revisionRoutes(s: Services) {
  const service = serviceOf(s);
  const serviceRevisionOf = async (ctx: Ctx, p: Record<string, string>): Promise<{ service: ServiceRow; row: ServiceRevisionRow }> => {
    const svc = await service(ctx, p);
    const n = revisionNumber(p.revision);
    const row = n === null ? undefined : await s.revisions.find(svc.id, n);
    if (!row) throw notFound('Revision');
    return { service: svc, row };
  };
  return [
    route<unknown, { limit: number; offset: number }, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/revisions', operationId: 'listServiceRevisions', tag: 'services', access: 'viewer',
      summary: "A service's revisions, newest first (without their specs)", load: service, query: paginationQuery, response: listOf(summary),
      async handler(_ctx, { resource, query }) {
        const page = await s.revisions.page(resource.id, query);
        return { ...page, items: page.items.map(toRevisionSummary) };
      },
    }),

    // before /revisions/{revision}: "diff" is not a revision number
    route<unknown, { from: number; to: number }, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/revisions/diff', operationId: 'diffServiceRevisions', tag: 'services', access: 'viewer',
      summary: 'What changed from one revision to another: field paths and a unified diff (secret values never shown)', load: service,
      query: { from: int(1, INT32_MAX, { description: 'The older revision' }), to: int(1, INT32_MAX, { description: 'The newer revision' }) },
      response: diffAnswer,
      async handler(_ctx, { resource, query }) {
        if (query.from === undefined || query.to === undefined) throw validationError('from and to name the two revisions to compare', query.from === undefined ? 'from' : 'to');
        const rows = await s.revisions.pair(resource.id, query.from, query.to);
        const from = rows.find((r) => r.revision === query.from);
        const to = rows.find((r) => r.revision === query.to);
        if (!from || !to) throw notFound(`Revision ${!from ? query.from : query.to}`);
        const a = { revision: from.revision, spec: from.spec as unknown as RevisionSpec };
        const b = { revision: to.revision, spec: to.spec as unknown as RevisionSpec };
        return { from: a.revision, to: b.revision, changes: revisionChanges(a.spec, b.spec), unified: unifiedRevisionDiff(a, b) };
      },
    }),

    route({
      method: 'GET', path: '/api/services/{id}/revisions/{revision}', operationId: 'getServiceRevision', tag: 'services', access: 'viewer',
      summary: 'One revision with its rendered spec (secrets as references and versions)', load: serviceRevisionOf, response: detail,
      handler: async (_ctx, { resource }) => ({ ...toRevisionSummary({ ...resource.row, imageTag: (resource.row.spec as unknown as RevisionSpec).image?.tag ?? null }), spec: resource.row.spec }),
    }),

    route<unknown, { wait?: boolean }>({
      method: 'POST', path: '/api/services/{id}/revisions/{revision}/revert', operationId: 'revertServiceRevision', tag: 'services',
      access: 'operator', summary: "Run a revision's spec again: a new revision and a plan, like a deploy (202; ?wait=true answers when it has finished)",
      load: serviceRevisionOf, query: { wait: bool }, status: 202, response: planRead, alsoAnswers: { 200: WAITED_ANSWER }, errors: [409],
      async handler(ctx, { resource, query }) {
        const { service: svc, row } = resource;
        const plan = await requestRevert(s, svc, row.revision, { createdBy: ctx.state.actor!.name, wait: query.wait });
        ctx.state.audit = { resourceType: 'services', resourceId: svc.id, environmentId: svc.environmentId, details: { revision: row.revision, planId: plan.id } };
        return result(query.wait ? 200 : 202, toPlan(plan, (await s.plans.steps.ofPlan(plan.id)).map(toStep)));
      },
    }),
  ];
}
