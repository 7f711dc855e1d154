// Revisions as the entrance and the plan engine use them: a request's rendered spec becomes the
// service's desired revision (a new number only when it differs from the newest), a plan's end
// records its outcome (the newest that fully succeeded is current, a failed desired one is
// failed), and old revisions beyond the environment's limit are dropped (never one that is
// desired, current, failed or running on a server).
import type { Services } from '../../controller/services.js';
import type { Trx } from '../../controller/store/transaction.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { ConfigAttachmentRow } from '../../controller/store/repositories/config-attachments.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { DeploymentPlanRow } from '../../controller/store/repositories/deployment-plans.js';
import type { PlanStepRow } from '../../controller/store/repositories/plan-steps.js';
import type { ServiceRevisionRow } from '../../controller/store/repositories/service-revisions.js';
import { loadEnvSources } from '../../controller/deploy/env-sources.js';
import { loadDesired, operationsOf, type DesiredReads, type OperationsSettings } from '../deployment/load-desired.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import type { EnvSources } from '../../controller/deploy/compose/render-env.js';
import { revisionHash, revisionSpecOf, specOfRevision, templateOf, type RevisionSpec } from './revision-spec.js';
import { canonicalJson } from '../../controller/model/desired-container.js';

/** A service's deployment as a revision renders it: with its server's name (listByServiceInServerOrder). */
export type DeploymentWithServer = DeploymentRow & { serverName: string };

/**
 * What rendering a service's revision reads besides its row, when its caller read it already (the
 * entrance, for all the services of a request at once: readForRevisions). Absent: read here.
 */
export interface RevisionReads {
  deployments: DeploymentWithServer[];
  attachments: ConfigAttachmentRow[];
  /** The image the service linked when read: used only while it links the same one. */
  image?: ContainerImageRow;
  /** Of the service's environment. */
  sources?: EnvSources;
  operations?: OperationsSettings;
}

/**
 * The services named and what rendering their revisions reads, in one round of parallel queries
 * keyed by their ids and the request's environment (the vars, secrets and settings are given only
 * to a service of that environment; another's are read when it renders).
 */
export async function readForRevisions(s: DesiredReads, serviceIds: string[], environmentId: string): Promise<Array<{ row: ServiceRow; read: RevisionReads }>> {
  const [rows, attachments, images, sources, operations, deployments] = await Promise.all([
    s.services.listByIds(serviceIds), s.configStore.attachments.forServices(serviceIds), s.containerImages.ofServices(serviceIds),
    loadEnvSources(s.configStore.catalog, environmentId), operationsOf(s, environmentId),
    Promise.all(serviceIds.map((id) => s.deployments.listByServiceInServerOrder(id))),
  ]);
  return rows.map((row) => ({
    row,
    read: {
      deployments: deployments[serviceIds.indexOf(row.id)], attachments: attachments.filter((a) => a.serviceId === row.id),
      image: images.find((i) => i.id === row.containerImageId), ...(row.environmentId === environmentId && { sources, operations }),
    },
  }));
}

/**
 * The revision a request would create: `service` as the request will have written it, each of its
 * deployments rendered at `tag` with today's vars, secrets and config files; with it the
 * environment's revisionHistoryLimit. null: nothing can be rendered (no image).
 */
async function render(s: DesiredReads, service: ServiceRow, deployments: DeploymentWithServer[], tag: string,
  read?: RevisionReads): Promise<{ spec: RevisionSpec; historyLimit: number } | null> {
  if (!service.containerImageId) return null;
  const [image, sources, attachments, operations] = await Promise.all([
    read?.image?.id === service.containerImageId ? read.image : s.containerImages.findById(service.containerImageId),
    read?.sources ?? loadEnvSources(s.configStore.catalog, service.environmentId),
    read?.attachments ?? s.configStore.attachments.forServices([service.id]),
    read?.operations ?? operationsOf(s, service.environmentId),
  ]);
  if (!image) return null;
  const fileNames = new Map((await Promise.all([...new Set(attachments.map((a) => a.configFileId))].map((id) => s.configStore.files.findById(id))))
    .flatMap((f) => (f ? [[f.id, f.name] as const] : [])));
  const rendered = await Promise.all(deployments.map((d) => loadDesired(s, d, {
    imageTag: tag, imageId: null, revision: null, serverName: d.serverName,
    rows: { service, image, server: undefined, attachments, operations, sources },
  })));
  const spec = revisionSpecOf({
    image: { containerImageId: image.id, name: image.imageName, tag },
    template: templateOf(service),
    files: attachments.filter((a) => fileNames.has(a.configFileId)).map((a) => ({
      attachmentId: a.id, configFileId: a.configFileId, configFileName: fileNames.get(a.configFileId)!, targetPath: a.targetPath, mode: a.mode,
    })),
    vars: sources.vars, secrets: sources.secrets, hashKey: s.configStore.hashKey,
    rendered: rendered.flatMap((x) => (x ? [x.desired] : [])),
  });
  return { spec, historyLimit: operations.revisionHistoryLimit };
}

export interface AcceptedRevision {
  revision: number;
  imageTag: string;
  created: boolean;
  /** The service's deployments in server order, read under the lock (what the plan's steps are built from). */
  deployments: DeploymentWithServer[];
}

/**
 * A revision rendered before the request takes the service's row lock: the lock is then held
 * only to compare and write, and the render's reads never wait for a pool connection while a
 * transaction holds one (ten requests at once for one service starved the pool that way).
 */
export interface PreparedRevision {
  template: string;
  tag: string;
  imageId: string | null;
  deployments: string;
  rendered: { spec: RevisionSpec; historyLimit: number } | null;
}

const placementOf = (ds: DeploymentRow[]) => canonicalJson(ds.map((d) => [d.id, d.serverId, d.containerName, d.composePath]).sort());

/**
 * Renders `service` as the request will have written it (outside any transaction). `read`: what
 * the caller read for it already (readForRevisions).
 */
export async function prepareRevision(s: DesiredReads, service: ServiceRow, tag: string, read?: RevisionReads): Promise<PreparedRevision> {
  const deployments = read?.deployments ?? await s.deployments.listByServiceInServerOrder(service.id);
  return {
    template: canonicalJson(templateOf(service)), tag, imageId: service.containerImageId, deployments: placementOf(deployments),
    rendered: await render(s, service, deployments, tag, read),
  };
}

/**
 * Under the service's row lock (the caller's transaction): the rendered spec becomes the desired
 * revision, a new one when it differs from the newest, and the oldest beyond the limit are
 * dropped (reads the deployments, then one statement writes: ServiceRevisionsRepository.
 * acceptAsDesired). `prepared` is used when the row and its
 * deployments are still what it was rendered from (else, rarely, it is rendered again here). A
 * request that asks again for a revision that failed is a new attempt: its failure is cleared
 * until this rollout ends. `planId`: the plan that will roll it out (the revision is pending
 * under it), null for a heal, which records no rollout.
 */
export async function acceptRevision(s: DesiredReads, service: ServiceRow, tag: string,
  o: { source: string; createdBy: string | null; revertedFrom?: number | null; retryFailed: boolean; prepared?: PreparedRevision; planId: string | null }, trx: Trx)
  : Promise<AcceptedRevision | null> {
  const { retryFailed, prepared, planId, ...meta } = o;
  const deployments = await s.deployments.listByServiceInServerOrder(service.id, trx);
  const current = prepared && prepared.tag === tag && prepared.imageId === service.containerImageId
    && prepared.template === canonicalJson(templateOf(service)) && prepared.deployments === placementOf(deployments);
  const rendered = current ? prepared.rendered : await render(s, service, deployments, tag);
  if (!rendered) return null;
  // a new revision drops the oldest beyond the environment's limit, never one that is desired (the
  // new one), current, failed or running on a server
  const pinned = [service.currentRevision, service.failedRevision, ...deployments.map((d) => d.revision)].filter((r): r is number => r != null);
  const { revision, created } = await s.revisions.acceptAsDesired({
    serviceId: service.id, environmentId: service.environmentId, spec: rendered.spec as never, specHash: revisionHash(rendered.spec), ...meta, planId, retryFailed,
    prune: { keep: rendered.historyLimit, pinned },
  }, trx);
  return { revision, imageTag: tag, created, deployments };
}

/** The spec of one revision, or undefined. */
export async function revisionSpec(s: Pick<Services, 'revisions'>, serviceId: string, revision: number | null): Promise<RevisionSpec | undefined> {
  if (revision == null) return undefined;
  const row = await s.revisions.find(serviceId, revision);
  return row ? (row.spec as unknown as RevisionSpec) : undefined;
}

/**
 * A plan ended: the revisions it rolled out get their outcome. Succeeded: the revision is the
 * service's current one once every deployment of the service runs it (unless a newer one is
 * current already). Failed (rolled back or
 * not): a desired revision that failed is the service's failed one, with the plan's error.
 * Superseded: a newer request owns the service now. Heals restore what is already desired or
 * current and change no outcome.
 */
export async function recordPlanOutcome(s: Pick<Services, 'deployments' | 'revisions' | 'services' | 'transaction'>, plan: DeploymentPlanRow,
  steps: PlanStepRow[]): Promise<void> {
  if (plan.trigger === 'drift-heal') return;
  const byService = new Map<string, number>();
  for (const st of steps) if (st.serviceId && st.revision != null) byService.set(st.serviceId, st.revision);
  for (const [serviceId, revision] of byService) {
    await s.transaction(async (trx) => {
      const [svc] = await s.services.lockForUpdate([serviceId], trx);
      if (!svc) return;
      if (plan.status === 'succeeded') {
        const deployments = await s.deployments.listByService(serviceId, trx);
        if (deployments.some((d) => d.imageTag && d.revision !== revision)) return;
        await s.revisions.recordOutcome(serviceId, revision, 'succeeded', null, trx);
        // every container runs it: it is the last good state, even when a newer request is desired
        // already (that one may fail: what the service falls back to is this, not an older one);
        // the failure recorded is cleared only by the desired revision's own success
        if (svc.currentRevision != null && svc.currentRevision > revision) return;
        await s.services.recordRevisions(serviceId, {
          currentRevision: revision, ...(svc.desiredRevision === revision && { failedRevision: null, failedReason: null }),
        }, trx);
      } else if (plan.status === 'cancelled') {
        if (plan.supersededBy && svc.desiredRevision !== revision) await s.revisions.recordOutcome(serviceId, revision, 'superseded', `superseded by plan ${plan.supersededBy}`, trx);
      } else if (plan.status === 'failed' || plan.status === 'rolled_back' || plan.status === 'rollback_failed') {
        const reason = (plan.error ?? 'the rollout failed').replace(/; (rolled back|rolling back|some deployments could not be rolled back)$/, '');
        await s.revisions.recordOutcome(serviceId, revision, 'failed', reason, trx);
        if (svc.desiredRevision === revision) await s.services.recordRevisions(serviceId, { failedRevision: revision, failedReason: reason }, trx);
      }
    });
  }
}

/**
 * A manual rollback is a request for what it restored: each service whose rolled-back steps all
 * went back to one revision desires that revision again (its template and tag written back).
 * Steps from before revisions existed carry only a tag: the tag is written back.
 */
export async function restoreDesiredAfterRollback(s: Pick<Services, 'deployments' | 'revisions' | 'services' | 'transaction'>, steps: PlanStepRow[]): Promise<void> {
  const byService = new Map<string, PlanStepRow[]>();
  for (const st of steps.filter((x) => x.serviceId && x.status === 'rolled_back')) byService.set(st.serviceId!, [...byService.get(st.serviceId!) ?? [], st]);
  for (const [serviceId, list] of byService) {
    const revisions = new Set(list.map((x) => x.previousRevision));
    const tags = new Set(list.map((x) => x.previousImageTag));
    const [revision] = [...revisions];
    const [tag] = [...tags];
    const row = revisions.size === 1 && revision != null ? await s.revisions.find(serviceId, revision) : undefined;
    if (row) {
      await writeRevisionAsDesired(s, serviceId, row);
    } else if (tags.size === 1 && tag) {
      await s.services.writeDesiredTag(serviceId, tag);
    }
  }
}

async function writeRevisionAsDesired(s: Pick<Services, 'deployments' | 'services' | 'transaction'>, serviceId: string, row: ServiceRevisionRow): Promise<void> {
  const spec = row.spec as unknown as RevisionSpec;
  await s.transaction(async (trx) => {
    const [svc] = await s.services.lockForUpdate([serviceId], trx);
    if (!svc) return;
    const { changed } = await s.services.updateSpec(svc, specOfRevision(spec), trx);
    if (changed.length) await s.deployments.bumpGenerationOfServices([serviceId], trx);
    await s.services.recordRevisions(serviceId, { desiredRevision: row.revision, currentRevision: row.revision, failedRevision: null, failedReason: null }, trx);
  });
}
