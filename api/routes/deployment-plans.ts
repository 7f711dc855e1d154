// Deployment plans: create (optionally execute or preview), list, get with steps, execute (dryRun),
// cancel, rollback, and the SSE stream of one plan's events.
import type { Services } from '../../controller/services.js';
import { toPlan } from '../../controller/store/repositories/deployment-plans.js';
import { toStep } from '../../controller/store/repositories/plan-steps.js';
import type { CreatePlanInput } from '../../reconcilers/deployment/plans/plan-builder.js';
import { previewPlanWithoutSaving } from '../../reconcilers/deployment/plans/preview-without-saving.js';
import { previewPlan } from '../../reconcilers/deployment/plans/plan-preview.js';
import { conflict } from '../../controller/errors/app-error.js';
import { executePendingPlan, proposePlan, requestDeploy } from '../../reconcilers/entrance.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, listOf, nonEmpty, nullable, object, paginationQuery, str, uuid, type Schema } from '../http/schema.js';
import { lastEventIdOf, openSse, SSE_ANSWER } from '../http/sse.js';
import { DRY_RUN_ANSWER, planRead, WAITED_ANSWER } from './plan-schemas.js';
import { environmentOf } from './loaders.js';
import { planOf } from './deploy-loaders.js';
import { planEvent } from '../../reconcilers/deployment/plans/plan-events.js';

const itemSchema = object({ serviceId: uuid, imageTag: nullable(nonEmpty(128)) }, ['serviceId']);
const createBody = object({
  name: nonEmpty(200), items: arrayOf(itemSchema, { minItems: 1, maxItems: 200 }), autoRollback: bool, execute: bool, dryRun: bool,
  strategy: enumOf('rolling', 'parallel'), pullImage: bool, generateArtifacts: bool,
}, ['items']);

export default function deploymentPlanRoutes(s: Services) {
  const load = planOf(s);
  const withSteps = async (id: string) => {
    const plan = (await s.plans.repo.findById(id))!;
    return toPlan(plan, (await s.plans.steps.ofPlan(id)).map(toStep));
  };
  return [
    route<{ name?: string; items: CreatePlanInput['items']; autoRollback?: boolean; execute?: boolean; dryRun?: boolean; strategy?: 'rolling' | 'parallel'; pullImage?: boolean; generateArtifacts?: boolean }>({
      method: 'POST', path: '/api/environments/{envId}/deployment-plans', operationId: 'createDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'Create a plan from services in dependency order; execute or preview it at once', load: environmentOf(s),
      body: createBody, status: 201, response: planRead, alsoAnswers: { 200: DRY_RUN_ANSWER }, errors: [409],
      async handler(ctx, { body, params }) {
        const input: CreatePlanInput = {
          environmentId: params.envId, name: body.name, items: body.items, autoRollback: body.autoRollback, strategy: body.strategy,
          pullImage: body.pullImage, generateArtifacts: body.generateArtifacts, trigger: 'api', createdBy: ctx.state.actor!.name,
        };
        if (body.dryRun) {
          ctx.state.audit = { skip: true };
          return result(200, { dryRun: true, ...(await previewPlanWithoutSaving(s, input)) });
        }
        const plan = body.execute ? await requestDeploy(s, { ...input, trigger: 'api' }) : await proposePlan(s, input);
        return result(201, await withSteps(plan.id));
      },
    }),

    route<unknown, { limit: number; offset: number; status?: string }>({
      method: 'GET', path: '/api/environments/{envId}/deployment-plans', operationId: 'listDeploymentPlans', tag: 'deployment-plans',
      access: 'viewer', summary: 'Plans of an environment, newest first', load: environmentOf(s),
      query: { ...paginationQuery, status: str() }, response: listOf(planRead),
      async handler(_ctx, { params, query }) {
        const page = await s.plans.repo.pageOfEnvironment(params.envId, query.status, query);
        return { ...page, items: page.items.map((r) => toPlan(r)) };
      },
    }),

    route({
      method: 'GET', path: '/api/deployment-plans/{id}', operationId: 'getDeploymentPlan', tag: 'deployment-plans', access: 'viewer',
      summary: 'One plan with its steps, their logs and timings', load, response: planRead,
      async handler(_ctx, { resource }) {
        return withSteps(resource.id);
      },
    }),

    route<{ dryRun?: boolean }, { dryRun?: boolean }>({
      method: 'POST', path: '/api/deployment-plans/{id}/execute', operationId: 'executeDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'Execute a pending plan; dryRun previews the actions and changes nothing', load,
      body: object({ dryRun: bool }), query: { dryRun: bool }, status: 202, response: planRead, alsoAnswers: { 200: DRY_RUN_ANSWER }, errors: [409],
      async handler(ctx, { resource, body, query }) {
        const dryRun = body.dryRun ?? query.dryRun ?? false;
        if (dryRun) {
          if (resource.status !== 'pending') throw conflict(`the plan is ${resource.status}; only a pending plan can be executed`);
          ctx.state.audit = { skip: true };
          return result(200, { dryRun: true, plan: toPlan(resource), steps: await previewPlan(s, resource, await s.plans.steps.ofPlan(resource.id)) });
        }
        await executePendingPlan(s, resource.id);
        return result(202, await withSteps(resource.id));
      },
    }),

    route({
      method: 'POST', path: '/api/deployment-plans/{id}/cancel', operationId: 'cancelDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'Cancel a plan: takes effect before the next step; the plan ends cancelled', load, response: planRead, errors: [409],
      async handler(_ctx, { resource }) {
        await s.plans.cancel(resource.id);
        return withSteps(resource.id);
      },
    }),

    route<unknown, { wait?: boolean }>({
      method: 'POST', path: '/api/deployment-plans/{id}/rollback', operationId: 'rollbackDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'Redeploy the previous tag of every deployment the plan touched', load,
      query: { wait: bool }, status: 202, response: planRead, alsoAnswers: { 200: WAITED_ANSWER }, errors: [409],
      async handler(_ctx, { resource, query }) {
        await s.plans.rollback(resource.id);
        if (query.wait) await s.plans.waitFor(resource.id);
        return result(query.wait ? 200 : 202, await withSteps(resource.id));
      },
    }),

    route({
      method: 'POST', path: '/api/deployment-plans/{id}/promote', operationId: 'promoteDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'End the pause a running plan is in between waves (pause: true, a pauseSec wait, or an operator pause): the next wave starts',
      load, response: planRead, errors: [409],
      async handler(ctx, { resource }) {
        const row = await s.plans.repo.promote(resource.id);
        if (!row) throw conflict(`the plan is ${resource.status}${resource.status === 'running' ? `, ${resource.waveState?.phase ?? 'without waves'}` : ''}; only a plan paused between waves can be promoted`);
        await planEvent(s, row);
        ctx.state.audit = { details: { wave: row.promotedWave } };
        return withSteps(resource.id);
      },
    }),

    route({
      method: 'POST', path: '/api/deployment-plans/{id}/pause', operationId: 'pauseDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: 'Stop a running plan with waves at its next wave boundary, until resumed or promoted',
      load, response: planRead, errors: [409],
      async handler(_ctx, { resource }) {
        if (resource.status === 'running' && !resource.waves) throw conflict('the plan has no waves to pause between (its services have no rollout)');
        const row = await s.plans.repo.requestPause(resource.id);
        if (!row) throw conflict(`the plan is ${resource.status}; only a running plan can be paused`);
        await planEvent(s, row);
        return withSteps(resource.id);
      },
    }),

    route({
      method: 'POST', path: '/api/deployment-plans/{id}/resume', operationId: 'resumeDeploymentPlan', tag: 'deployment-plans',
      access: 'operator', summary: "Lift an operator's pause (POST …/pause); a rollout's own pause: true waits for promote", load, response: planRead, errors: [409],
      async handler(_ctx, { resource }) {
        const row = await s.plans.repo.resume(resource.id);
        if (!row) {
          throw conflict(`the plan is ${resource.status}${resource.status === 'running' ? ' and was not paused by an operator' : ''}; nothing to resume`,
            resource.waveState?.phase === 'paused' ? 'A pause of the rollout itself ends with POST …/promote' : undefined);
        }
        await planEvent(s, row);
        return withSteps(resource.id);
      },
    }),

    route({
      method: 'GET', path: '/api/deployment-plans/{id}/events', operationId: 'streamDeploymentPlan', tag: 'deployment-plans',
      access: 'viewer', summary: 'SSE: plan.updated (with currentWave), plan.step, deployment.updated, deployment.wave_started and deployment.analysis_failed events of the plan (Last-Event-ID resume)', load, ...SSE_ANSWER,
      async handler(ctx, { resource }) {
        const sse = openSse(ctx);
        const deploymentIds = new Set((await s.plans.steps.ofPlan(resource.id)).map((x) => x.deploymentId));
        const mine = (e: { type: string; data: Record<string, unknown> }) =>
          e.data.planId === resource.id || (e.type === 'deployment.updated' && deploymentIds.has(e.data.deploymentId as string));
        let last = lastEventIdOf(ctx);
        const buffered: Array<{ id: number; type: string; data: Record<string, unknown> }> = [];
        let live = false;
        const unsubscribe = s.events.subscribe((e) => {
          if (!mine(e)) return;
          if (!live) buffered.push(e);
          else if (e.id > last) { last = e.id; sse.send(e.type, e.data, e.id); }
        });
        sse.closed.then(unsubscribe, unsubscribe);
        if (last === 0) {
          // a first connect gets the current state, then the stream from here
          last = await s.events.lastId();
          sse.send('plan.updated', { planId: resource.id, ...(await withSteps(resource.id)), snapshot: true }, last);
        } else {
          for (;;) {
            const batch = await s.events.since(last, resource.environmentId);
            for (const e of batch) if (mine(e)) sse.send(e.type, e.data, e.id);
            if (batch.length) last = batch.at(-1)!.id;
            if (batch.length < 500) break;
          }
        }
        live = true;
        for (const e of buffered.splice(0)) if (e.id > last) { last = e.id; sse.send(e.type, e.data, e.id); }
      },
    }),
  ];
}
