// Compose templates of services, the generated artifacts preview (secrets redacted), and the
// artifacts stored per deployment (listed and downloadable; env files only ever redacted).
import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { toArtifact } from '../../controller/store/repositories/deployment-artifacts.js';
import { composeFilesOf } from '../../controller/deploy/compose/generate-compose.js';
import { managedComposePath } from '../../controller/deploy/compose/compose-path-rules.js';
import { loadDesired } from '../../reconcilers/deployment/load-desired.js';
import { decisionFor } from '../../controller/deploy/deploy-mode.js';
import { assertDefinesContainer, parseCompose } from '../../controller/deploy/compose/validate-compose.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, listOf, nonEmpty, nullable, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { serviceDeploymentOf, serviceOf } from './deploy-loaders.js';
import { changeServiceSpec } from '../../reconcilers/entrance.js';
import { assertSpecAllowed } from '../../controller/deploy/container-policy.js';

const composeRead = object({ serviceId: uuid, composeTemplate: nullable(str()), generated: bool }, ['serviceId', 'composeTemplate', 'generated']);
const composePreview = object({
  serviceId: uuid,
  items: arrayOf(object({
    deploymentId: uuid, serverId: uuid, containerName: str(), mode: enumOf('direct', 'compose-generated', 'compose-external'), imageTag: str(),
    compose: object({ path: str(), content: str(), sha256: str() }, ['path', 'content', 'sha256']),
    env: object({ path: str(), content: str(), secretKeys: arrayOf(str()), unresolved: arrayOf(str()) }, ['path', 'content', 'secretKeys', 'unresolved']),
  }, ['deploymentId', 'serverId', 'containerName', 'mode', 'imageTag', 'compose', 'env'])),
}, ['serviceId', 'items']);
const artifactRead = object({
  id: uuid, deploymentId: uuid, planId: nullable(uuid), kind: enumOf('compose', 'env'), path: str(), sha256: str(), imageTag: str(), createdAt: timestamp,
}, ['id', 'deploymentId', 'planId', 'kind', 'path', 'sha256', 'imageTag', 'createdAt']);

export default function composeRoutes(s: Services) {
  const load = serviceOf(s);
  return [
    route({
      method: 'GET', path: '/api/services/{id}/compose', operationId: 'getServiceCompose', tag: 'services', access: 'viewer',
      summary: 'The compose template of a service (null: the generator writes the document)', load, response: composeRead,
      async handler(_ctx, { resource }) {
        return { serviceId: resource.id, composeTemplate: resource.composeTemplate, generated: resource.composeTemplate === null };
      },
    }),

    route<{ composeTemplate: string }>({
      method: 'PUT', path: '/api/services/{id}/compose', operationId: 'setServiceCompose', tag: 'services', access: 'operator',
      summary: 'Set the compose template; it must define a service keyed by each deployment\'s containerName', load, response: composeRead,
      body: object({ composeTemplate: nonEmpty(200_000) }, ['composeTemplate']),
      async handler(ctx, { resource, body }) {
        const deployments = await s.deploymentViews.containerNamesOf(resource.id);
        for (const containerName of deployments) {
          const filled = body.composeTemplate.replace(/\{\{\s*containerName\s*\}\}/g, containerName);
          assertDefinesContainer(parseCompose(filled, 'composeTemplate'), containerName, 'composeTemplate');
        }
        if (!deployments.length) parseCompose(body.composeTemplate.replace(/\{\{\s*\w+\s*\}\}/g, 'x'), 'composeTemplate');
        for (const containerName of deployments.length ? deployments : [resource.name]) {
          await assertSpecAllowed(s, resource.environmentId, { composeTemplate: body.composeTemplate }, containerName);
        }
        const { row } = await changeServiceSpec(s, resource, { composeTemplate: body.composeTemplate }, ctx.state.actor!.name);
        ctx.state.audit = { resourceType: 'services', details: { fields: ['composeTemplate'] } };
        return { serviceId: row.id, composeTemplate: row.composeTemplate, generated: false };
      },
    }),

    route({
      method: 'DELETE', path: '/api/services/{id}/compose', operationId: 'deleteServiceCompose', tag: 'services', access: 'operator',
      summary: 'Remove the compose template (the generator writes the document again)', load, status: 204,
      async handler(ctx, { resource }) {
        await changeServiceSpec(s, resource, { composeTemplate: null }, ctx.state.actor!.name);
        ctx.state.audit = { resourceType: 'services', details: { fields: ['composeTemplate'] } };
        return undefined;
      },
    }),

    route<unknown, { imageTag?: string }>({
      method: 'GET', path: '/api/services/{id}/compose/preview', operationId: 'previewServiceCompose', tag: 'services', access: 'viewer',
      summary: 'The compose and env files each deployment would get, secrets redacted', load, query: { imageTag: str({ maxLength: 128 }) }, response: composePreview,
      async handler(_ctx, { resource, query }) {
        const image = resource.containerImageId ? await s.containerImages.findById(resource.containerImageId) : undefined;
        if (!image) throw validationError('the service has no container image', 'containerImageId');
        const tag = query.imageTag ?? resource.imageTag ?? image.currentTag ?? 'latest';
        const deployments = await s.deployments.list({ serviceId: resource.id }, { limit: 200, offset: 0 }, 'containerName');
        const items = await Promise.all(deployments.items.map(async (d) => {
          const decision = await decisionFor(s, d);
          const { desired } = (await loadDesired(s, d, { imageTag: tag }))!;
          const a = composeFilesOf(desired, decision.mode === 'direct' ? managedComposePath(d.containerName) : decision.path, resource.composeTemplate);
          return {
            deploymentId: d.id, serverId: d.serverId, containerName: d.containerName, mode: decision.mode, imageTag: tag,
            compose: { path: a.compose.path, content: a.compose.content, sha256: a.compose.sha256 },
            env: { path: a.env.path, content: a.env.redacted, secretKeys: desired.secretKeys, unresolved: desired.unresolved },
          };
        }));
        return { serviceId: resource.id, items };
      },
    }),

    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/services/{id}/deployments/{depId}/artifacts', operationId: 'listDeploymentArtifacts', tag: 'services',
      access: 'viewer', summary: 'Compose and env files generated for a deployment', load: serviceDeploymentOf(s), query: paginationQuery,
      response: listOf(artifactRead),
      async handler(_ctx, { resource, query }) {
        const page = await s.plans.artifacts.listOf(resource.deployment.id, query);
        return { ...page, items: page.items.map(toArtifact) };
      },
    }),

    route({
      method: 'GET', path: '/api/services/{id}/deployments/{depId}/artifacts/{artifactId}/download', operationId: 'downloadDeploymentArtifact',
      tag: 'services', access: 'viewer', summary: 'One artifact as a file (env files with secrets redacted)', load: serviceDeploymentOf(s),
      responseType: 'text/plain', response: str({ description: 'The compose or env file as written to the server, secret values replaced' }),
      async handler(_ctx, { resource, params }) {
        const a = await s.plans.artifacts.findById(params.artifactId);
        if (!a || a.deploymentId !== resource.deployment.id) throw notFound('Artifact');
        const name = a.kind === 'env' ? `${resource.deployment.containerName}.env` : `${resource.deployment.containerName}.docker-compose.yml`;
        return result(200, a.redactedContent, { 'content-type': 'text/plain; charset=utf-8', 'content-disposition': `attachment; filename="${name}"` });
      },
    }),
  ];
}
