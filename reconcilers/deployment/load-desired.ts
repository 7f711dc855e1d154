// Reads the store for one deployment and renders its desired container (desired.ts). Reads go
// through repositories and the config module; nothing here touches a server.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import type { ConfigAttachmentRow } from '../../controller/store/repositories/config-attachments.js';
import type { ServerWithKeyRow } from '../../controller/store/repositories/servers.js';
import { loadEnvSources } from '../../controller/deploy/env-sources.js';
import type { EnvSources } from '../../controller/deploy/compose/render-env.js';
import { decisionFor } from '../../controller/deploy/deploy-mode.js';
import type { ComposeDecision } from '../../controller/deploy/compose/compose-path-rules.js';
import { renderAttachedFiles } from '../../controller/config-files/attached-files.js';
import { renderDesired } from './desired.js';
import type { DesiredContainer } from '../../controller/model/desired-container.js';
import { sharedRead } from '../shared-read.js';
import { serviceAtRevision, type RevisionSpec } from '../service/revision-spec.js';
import { fallbackRevisionOf } from '../service/fallback.js';
import { dockerNameOf, type VolumeRow } from '../../controller/store/repositories/volumes.js';
import { dockerVolumeName, isVolumeMount, mountsOf, resolveVolumeEntries } from '../../controller/model/volume-mount.js';

export interface OperationsSettings { autoManageCompose: boolean; driftPolicy: 'off' | 'warn' | 'heal'; revisionHistoryLimit: number }

/** The environment's operations settings for a look: shared with the other looks reading them now. */
export const operationsOf = (s: Pick<Services, 'settings'>, environmentId: string): Promise<OperationsSettings> =>
  sharedRead(`operations/${environmentId}`, () => s.settings.get<OperationsSettings>(environmentId, 'operations'));

/** The environment's vars and secrets for a look: shared with the other looks reading them now. */
export const envSourcesOf = (s: Pick<Services, 'configStore'>, environmentId: string): Promise<EnvSources> =>
  sharedRead(`env-sources/${environmentId}`, () => loadEnvSources(s.configStore.catalog, environmentId));

export interface LoadedDesired {
  desired: DesiredContainer;
  decision: ComposeDecision;
  service: ServiceRow;
  /** Rendered bytes of each config file, by hostPath (they may hold secrets: never log them). */
  fileContents: Map<string, Buffer>;
  /** Every secret value of the environment, for redacting error text. */
  secretValues: string[];
  /** The managed volumes it mounts, which the deploy creates first (docs/volumes.md). */
  volumes: VolumeRow[];
  /** Why it cannot run where it is placed (a volume of another server, an unknown volume); null: it can. */
  volumeProblem: { field: string; message: string } | null;
}

export interface DesiredOptions {
  /** The tag to render; default the service's desired tag, once the deployment was rolled out (or tried). */
  imageTag?: string | null;
  imageId?: string | null;
  /** A look (not a deploy): environment-wide reads in flight for other looks are shared (reconcilers/shared-read.ts). */
  look?: boolean;
  /** The rows a look needs, read for a batch of looks at once (look-rows.ts); absent: read here. */
  rows?: LookRows;
  /**
   * The revision to render (a plan step's, a rollback's): its template, tag and config files over
   * today's vars and secrets. null: the service's row as it is now. Absent: the row, unless the
   * service's desired revision failed, then its last good revision (service/fallback.ts).
   */
  revision?: RevisionSpec | null;
  /** The server's name, when the caller read it with the deployment (a revision's render): the server is not read. */
  serverName?: string;
}

/** What loading one deployment's desired container reads besides the deployment (undefined: no such row). */
export interface LookRows {
  service: ServiceRow | undefined;
  image: ContainerImageRow | undefined;
  server: ServerWithKeyRow | undefined;
  attachments: ConfigAttachmentRow[];
  operations: OperationsSettings;
  sources: EnvSources;
}

/** What rendering a deployment's desired container reads. */
export type DesiredReads = Pick<Services, 'configStore' | 'containerImages' | 'deployments' | 'revisions' | 'servers' | 'services' | 'settings' | 'volumes'>;

/** null: nothing is desired yet (never deployed and no tag asked for, or no image). */
export async function loadDesired(s: DesiredReads, d: DeploymentRow, o: DesiredOptions = {}): Promise<LoadedDesired | null> {
  const row = o.rows ? o.rows.service : await s.services.findById(d.serviceId);
  if (!row) return null;
  const revision = o.revision !== undefined ? o.revision : await fallbackRevisionOf(s, row);
  const service = revision ? serviceAtRevision(row, revision) : row;
  const tag = o.imageTag === undefined ? desiredTagOf(d, service) : o.imageTag;
  if (!tag) return null;
  const image = o.rows && o.rows.image?.id === service.containerImageId ? o.rows.image
    : service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
  if (!image) return null;
  const attachments = revision
    ? revision.files.map((f) => ({ id: f.attachmentId, configFileId: f.configFileId, serviceId: row.id, environmentId: row.environmentId, targetPath: f.targetPath, mode: f.mode }) as ConfigAttachmentRow)
    : o.rows?.attachments;
  const [server, decision, sources, files] = await Promise.all([
    o.rows ? o.rows.server : o.serverName !== undefined ? undefined : s.servers.findById(d.serverId),
    o.rows ? decisionFor(s, d, o.rows.operations)
      : o.look ? operationsOf(s, d.environmentId).then((ops) => decisionFor(s, d, ops)) : decisionFor(s, d),
    o.rows ? o.rows.sources : o.look ? envSourcesOf(s, d.environmentId) : loadEnvSources(s.configStore.catalog, d.environmentId),
    renderAttachedFiles(s, service.id, d.environmentId, attachments),
  ]);
  const mounted = await mountedVolumes(s, service, d);
  const desired = renderDesired({
    service: { ...service, volumes: mounted.volumes }, deployment: d, serverName: o.serverName ?? server?.name ?? d.serverId, imageName: image.imageName, imageTag: tag,
    imageId: o.imageId === undefined ? (tag === d.imageTag ? d.imageDigest : null) : o.imageId,
    mode: decision.mode, sources, files, hashKey: s.configStore.hashKey,
  });
  const fileContents = new Map(files.map((f) => [desired.files.find((x) => x.attachmentId === f.attachmentId)!.hostPath, f.content]));
  return { desired, decision, service, fileContents, secretValues: Object.values(sources.secrets), volumes: mounted.rows, volumeProblem: mounted.problem };
}

/**
 * A service's volumes in Docker's short syntax, its managed volumes by their Docker names, and
 * whether they can be mounted by this deployment: a volume lives on one server and is mounted
 * only there. An unknown name renders as the name it would have (a look still compares), and the
 * deploy refuses it.
 */
async function mountedVolumes(s: Pick<Services, 'volumes'>, service: Pick<ServiceRow, 'volumes' | 'environmentId'>, d: DeploymentRow) {
  const mounts = mountsOf(service.volumes);
  if (!mounts.length) return { volumes: service.volumes as string[], rows: [] as VolumeRow[], problem: null };
  const rows = (await s.volumes.listByEnvironment(service.environmentId)).filter((v) => mounts.some((m) => m.volume === v.name));
  const byName = new Map(rows.map((v) => [v.name, v]));
  const names = new Map(mounts.map((m) => [m.volume, byName.has(m.volume) ? dockerNameOf(byName.get(m.volume)!) : dockerVolumeName(service.environmentId, m.volume)]));
  let problem: { field: string; message: string } | null = null;
  (service.volumes ?? []).forEach((v, i) => {
    if (problem || !isVolumeMount(v)) return;
    const row = byName.get(v.volume);
    if (!row) problem = { field: `volumes.${i}`, message: `volumes.${i}: no volume '${v.volume}' in this environment` };
    else if (row.serverId !== d.serverId) {
      problem = { field: `volumes.${i}`, message: `volumes.${i}: the volume ${v.volume} lives on another server than this deployment's: a service that mounts it runs only on its server` };
    }
  });
  return { volumes: resolveVolumeEntries(service.volumes, names), rows, problem };
}

/**
 * The service holds the desired tag, a deployment the tag it runs; a deployment never rolled out
 * (nor tried) has nothing desired of it yet.
 */
export function desiredTagOf(d: Pick<DeploymentRow, 'imageTag' | 'failedGeneration'>, service: Pick<ServiceRow, 'imageTag'>): string | null {
  if (!d.imageTag && d.failedGeneration === null) return null;
  return service.imageTag ?? d.imageTag;
}
