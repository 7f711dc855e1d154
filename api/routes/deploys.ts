// Deploying services: all deployments (a plan), one deployment (with dry run), restart, deploy
// history, and container logs (fetch and live SSE).
import type { Services } from '../../controller/services.js';
import { toPlan } from '../../controller/store/repositories/deployment-plans.js';
import { toHistoryRecord, toStep } from '../../controller/store/repositories/plan-steps.js';
import { previewPlanWithoutSaving } from '../../reconcilers/deployment/plans/preview-without-saving.js';
import { requestDeploy, requestHeal } from '../../reconcilers/entrance.js';
import { assertContainerName, assertImageTag } from '../../controller/deploy/names.js';
import { findContainer } from '../../controller/deploy/find-container.js';
import { fetchLogs, followLogs, type LogLine } from '../../controller/deploy/container-logs.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, listOf, nonEmpty, object, paginationQuery, str, uuid } from '../http/schema.js';
import { openSse, type SseStream, SSE_ANSWER } from '../http/sse.js';
import { serviceDeploymentOf, serviceOf } from './deploy-loaders.js';
import { DRY_RUN_ANSWER, historyRecordRead, planPreview, planRead, WAITED_ANSWER } from './plan-schemas.js';

const deployBody = object({ imageTag: nonEmpty(128), pullImage: bool, generateArtifacts: bool, strategy: enumOf('rolling', 'parallel') });


/** `logs --since D`: only the lines of the last D (seconds, at most 30 days), then at most `tail` of them. */
const sinceSec = int(1, 30 * 86_400, { description: 'Only lines written in the last sinceSec seconds (by the controller\'s clock)' });
export default function deployRoutes(s: Services) {
  const withSteps = async (id: string) => toPlan((await s.plans.repo.findById(id))!, (await s.plans.steps.ofPlan(id)).map(toStep));
  return [
    route<{ imageTag?: string; pullImage?: boolean; generateArtifacts?: boolean; strategy?: 'rolling' | 'parallel' }, { wait?: boolean }>({
      method: 'POST', path: '/api/services/{id}/deploy', operationId: 'deployService', tag: 'services', access: 'operator',
      summary: 'Deploy a service to all its deployments as a plan (202; ?wait=true answers when it has finished)',
      load: serviceOf(s), body: deployBody, query: { wait: bool }, status: 202, response: planRead, alsoAnswers: { 200: WAITED_ANSWER }, errors: [409],
      async handler(ctx, { resource, body, query }) {
        if (body.imageTag !== undefined) assertImageTag(body.imageTag);
        const plan = await requestDeploy(s, {
          environmentId: resource.environmentId, items: [{ serviceId: resource.id, imageTag: body.imageTag }],
          strategy: body.strategy, pullImage: body.pullImage, generateArtifacts: body.generateArtifacts, trigger: 'deploy',
          createdBy: ctx.state.actor!.name, wait: query.wait,
        });
        ctx.state.audit = { resourceType: 'services', resourceId: resource.id, environmentId: resource.environmentId, details: { planId: plan.id, imageTag: body.imageTag ?? null } };
        return result(query.wait ? 200 : 202, await withSteps(plan.id));
      },
    }),

    route<{ imageTag?: string; pullImage?: boolean; dryRun?: boolean }, { wait?: boolean; dryRun?: boolean }>({
      method: 'POST', path: '/api/services/{id}/deployments/{depId}/deploy', operationId: 'deployServiceDeployment', tag: 'services',
      access: 'operator', summary: 'Deploy one deployment (dryRun previews and changes nothing)', load: serviceDeploymentOf(s),
      body: object({ imageTag: nonEmpty(128), pullImage: bool, dryRun: bool }), query: { wait: bool, dryRun: bool }, status: 202, response: planRead, errors: [409],
      alsoAnswers: { 200: { description: `${DRY_RUN_ANSWER.description}; or ${WAITED_ANSWER.description}`, response: { oneOf: [planPreview, planRead] } } },
      async handler(ctx, { resource, body, query }) {
        if (body.imageTag !== undefined) assertImageTag(body.imageTag);
        const input = {
          environmentId: resource.service.environmentId, trigger: 'deploy', createdBy: ctx.state.actor!.name, pullImage: body.pullImage,
          items: [{ serviceId: resource.service.id, imageTag: body.imageTag, deploymentIds: [resource.deployment.id] }],
        };
        if (body.dryRun ?? query.dryRun) {
          ctx.state.audit = { skip: true };
          return result(200, { dryRun: true, ...(await previewPlanWithoutSaving(s, input)) });
        }
        const plan = await requestDeploy(s, { ...input, wait: query.wait });
        ctx.state.audit = { resourceType: 'deployments', resourceId: resource.deployment.id, environmentId: resource.service.environmentId, details: { planId: plan.id } };
        return result(query.wait ? 200 : 202, await withSteps(plan.id));
      },
    }),

    route({
      method: 'POST', path: '/api/services/{id}/deployments/{depId}/heal', operationId: 'healServiceDeployment', tag: 'services',
      access: 'operator', summary: 'Converge one drifted deployment now, as drift heal does (202 with the plan)',
      description: 'Its container goes back to what is desired, or to the last good revision while the desired one has failed. '
        + '409 when it already matches, or when a heal would only retry a failed revision.',
      load: serviceDeploymentOf(s), status: 202, response: planRead, errors: [409],
      async handler(ctx, { resource }) {
        const plan = await requestHeal(s, resource.service, resource.deployment);
        ctx.state.audit = { resourceType: 'deployments', resourceId: resource.deployment.id, environmentId: resource.service.environmentId, details: { planId: plan.id } };
        return result(202, await withSteps(plan.id));
      },
    }),

    route({
      method: 'POST', path: '/api/services/{id}/deployments/{depId}/restart', operationId: 'restartServiceDeployment', tag: 'services',
      access: 'operator', summary: 'Restart the container of a deployment (same image)', load: serviceDeploymentOf(s), errors: [503],
      response: object({ deploymentId: uuid, restarted: { type: 'boolean', enum: [true] } }, ['deploymentId', 'restarted']),
      async handler(ctx, { resource }) {
        const d = resource.deployment;
        assertContainerName(d.containerName);
        const docker = await s.hosts.docker(d.serverId);
        await docker.getContainer((await findContainer(docker, d.containerName)) ?? d.containerName).restart({ t: 10 });
        ctx.state.audit = { resourceType: 'deployments', resourceId: d.id, environmentId: d.environmentId, details: { containerName: d.containerName } };
        await s.events.publish('deployment.updated', d.environmentId, { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, status: d.status, imageTag: d.imageTag, restarted: true });
        return { deploymentId: d.id, restarted: true };
      },
    }),

    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/services/{id}/deployments-history', operationId: 'listServiceDeploymentHistory', tag: 'services',
      access: 'viewer', summary: 'Deploy steps that touched the service, newest first', load: serviceOf(s), query: paginationQuery,
      response: listOf(historyRecordRead),
      async handler(_ctx, { resource, query }) {
        const { rows, total } = await s.plans.steps.historyOfService(resource.id, query.limit, query.offset);
        return {
          items: rows.map(toHistoryRecord),
          total, limit: query.limit, offset: query.offset,
        };
      },
    }),

    route<unknown, { tail: number; sinceSec?: number }>({
      method: 'GET', path: '/api/services/{id}/deployments/{depId}/logs', operationId: 'getServiceDeploymentLogs', tag: 'services',
      access: 'viewer', summary: 'The last lines of the container output', load: serviceDeploymentOf(s), query: { tail: int(1, 10000, { default: 200 }), sinceSec },
      errors: [503], response: object({
        deploymentId: uuid, containerName: str(),
        lines: arrayOf(object({ stream: enumOf('stdout', 'stderr'), line: str() }, ['stream', 'line'])),
      }, ['deploymentId', 'containerName', 'lines']),
      async handler(_ctx, { resource, query }) {
        const d = resource.deployment;
        assertContainerName(d.containerName);
        const docker = await s.hosts.docker(d.serverId);
        const lines = await fetchLogs(docker, (await findContainer(docker, d.containerName)) ?? d.containerName, query.tail, query.sinceSec);
        return { deploymentId: d.id, containerName: d.containerName, lines };
      },
    }),

    route<unknown, { tail: number; sinceSec?: number }>({
      method: 'GET', path: '/api/services/{id}/deployments/{depId}/logs/stream', operationId: 'streamServiceDeploymentLogs', tag: 'services',
      access: 'viewer', summary: 'SSE: the container output live, one `log` event per line', load: serviceDeploymentOf(s),
      query: { tail: int(0, 10000, { default: 50 }), sinceSec }, ...SSE_ANSWER, errors: [503],
      async handler(ctx, { resource, query }) {
        const d = resource.deployment;
        assertContainerName(d.containerName);
        const docker = await s.hosts.docker(d.serverId);
        let n = 0;
        const early: LogLine[] = [];
        let sse: SseStream | null = null;
        const ref = (await findContainer(docker, d.containerName)) ?? d.containerName;
        const stop = await followLogs(docker, ref, query.tail, (l) => (sse ? sse.send('log', l, ++n) : early.push(l)), query.sinceSec);
        sse = openSse(ctx);
        for (const l of early) sse.send('log', l, ++n);
        sse.closed.then(stop, stop);
      },
    }),
  ];
}
