import type { Services } from '../services.js';
import { lockUntilCommit } from '../store/transaction.js';
import { resourceTypeOfKind } from '../audit/resource-types.js';
import { diffStates, countChanges } from './diff.js';
import { desiredStates } from './desired.js';
import { loadManifestsPaced, type LoadedFile } from './load.js';
import type { FileCache } from './file-cache.js';
import { existingKeys, readSnapshot } from './snapshot.js';
import { stateKey, type Change, type ObjectState } from './state.js';
import { servicesAffectedByConfig } from './affected-services.js';
import type { Manifest, ManifestError, ManifestFile } from './types.js';
import type { ManifestOrigin } from './reference-policy.js';
import type { ChangedService } from '../model/manifest-hand-off.js';
import { kindOf } from '../kinds/index.js';
import { containerPolicyErrors } from './container-policy.js';
import { ingressClaimErrors } from './ingress-claims.js';
import { INGRESS_CHANGED } from '../model/ingress.js';
import { controllerPaths } from '../deploy/container-policy.js';
import { previewManifests, type PreviewPlacement } from './git/preview-manifests.js';
import { createObject, deleteObject, ObjectInUse, SUPPORTED_KINDS, syncDependencies, updateObject, type WriteContext } from './write-objects.js';

export interface ApplyOptions {
  /** Whose files these are: what they may read is reference-policy.ts's to say. */
  origin: ManifestOrigin;
  dryRun?: boolean;
  prune?: boolean;
  /** Base of relative valueFrom.file paths. */
  baseDir: string | null;
  gitCommit?: string | null;
  /** Who asked (API caller); the watcher applies as the 'manifest' actor. */
  actor?: { type: 'user' | 'service_account'; id: string; name: string } | null;
  requestId?: string;
  /** The watcher's per-file cache of parsed and validated documents (see file-cache.ts). */
  cache?: FileCache<LoadedFile>;
  /** An environment's Git source: its manifests may only name that environment, and it prunes only what it applied. */
  scope?: SourceScope;
  /** Secret values a SOPS file held, by file and document path (controller/manifests/sops/): read in memory only. */
  sopsValues?: Map<string, string>;
  /** A pull request's preview (git/preview-manifests.ts): its manifests rewritten, and the parent's chosen servers by name -> id. */
  preview?: { placement: PreviewPlacement; serverIds: Record<string, string> };
}

export interface SourceScope {
  /** `git:<environment id>`: recorded in each object's source. */
  origin: string;
  environment: string;
  /** The repository URL (without credentials), named by ownership conflicts. */
  repository: string;
}

export interface ApplyResult {
  revision: { contentHash: string; gitCommit: string | null };
  ok: boolean;
  dryRun: boolean;
  errors: ManifestError[];
  changes: Change[];
  counts: ReturnType<typeof countChanges>;
  /** Services whose template or placements changed: handed to the deploy engine. */
  changedServices: ChangedService[];
  /** Deployments removed (service pruned, or dropped from spec.deployments): their containers go after commit. */
  removedDeployments: Array<Record<string, any>>;
  /** Environments whose SSH key changed: pooled connections must be dropped after commit. */
  sshKeyChanged: string[];
  /** Environments where a server or a service changed: placement by selector is looked at again after commit. */
  placementChanged: string[];
}

// Fields of a service whose change means its containers must be redeployed.
const DEPLOYED_FIELDS = new Set(['image', 'imageTag', 'type', 'env', 'ports', 'volumes', 'command', 'healthCheck', 'composeTemplate', 'updateOrder', 'restartPolicy', 'deployments', 'configFiles']);
// One apply at a time across replicas and the watcher.
const APPLY_LOCK = 0x5ed0_0006;

/**
 * Loads, diffs and (unless dryRun or anything is wrong) applies a folder in ONE transaction:
 * a folder with any error applies nothing. Every change is audited with details.source
 * 'manifest' and the file. Deleted objects are only removed when pruning.
 */
export async function applyManifests(s: Services, files: ManifestFile[], opts: ApplyOptions): Promise<ApplyResult> {
  try {
    return await writeManifests(s, files, opts);
  } catch (e) {
    if (!(e instanceof ObjectInUse) || !e.at) throw e;
    // a prune another object blocks: said in words at the file the object came from; nothing was written
    return {
      revision: e.at.revision, ok: false, dryRun: !!opts.dryRun, errors: [{ file: e.at.path, line: 1, column: 1, path: '', message: e.message }],
      changes: [], counts: countChanges([]), changedServices: [], removedDeployments: [], sshKeyChanged: [], placementChanged: [],
    };
  }
}

async function writeManifests(s: Services, files: ManifestFile[], opts: ApplyOptions): Promise<ApplyResult> {
  const prune = opts.prune ?? s.config.manifestsPrune;
  return s.transaction(async (trx) => {
    await lockUntilCommit(trx, APPLY_LOCK);
    const snap = await readSnapshot(trx, s.secretBox);
    const preview = opts.preview;
    // a preview's services are deployed on the parent's chosen servers: known by name in the preview, as the parent's rows
    if (preview) for (const [name, id] of Object.entries(preview.serverIds)) snap.ids.set(`${preview.placement.environment}/Server/${name}`, id);
    const loaded = await loadManifestsPaced(files, opts.origin, existingKeys(snap), preview ? undefined : opts.cache,
      preview && ((m) => previewManifests(m, preview.placement)));
    const revision = { contentHash: loaded.contentHash, gitCommit: opts.gitCommit ?? null };
    const desired = desiredStates(loaded.manifests, revision.gitCommit ?? revision.contentHash, {
      origin: opts.origin, env: process.env, baseDir: opts.baseDir, sops: opts.sopsValues,
      storedSecret: (environment, key) => {
        const sealed = snap.sealedSecrets.get(`${environment}/${key}`);
        return sealed ? s.secretBox.open(sealed) : undefined;
      },
    });
    referToStoredImages(desired.objects, snap.objects);
    const errors = [...loaded.errors, ...desired.errors, ...unsupported(loaded.manifests), ...(opts.scope ? outOfScope(loaded.manifests, opts.scope) : [])];
    if (!errors.length) errors.push(...containerPolicyErrors(loaded.manifests, desired.objects, snap.objects, controllerPaths(s.config)));
    if (!errors.length) errors.push(...ingressClaimErrors(loaded.manifests, desired.objects, snap.objects));
    if (opts.scope) for (const o of desired.objects) Object.assign(o.source!, { origin: opts.scope.origin, repository: opts.scope.repository });
    const base = { revision, dryRun: !!opts.dryRun, errors, changedServices: [] as ApplyResult['changedServices'], removedDeployments: [], sshKeyChanged: [] as string[], placementChanged: [] as string[] };
    if (errors.length) return { ...base, ok: false, changes: [], counts: countChanges([]) };
    const changes = diffStates(desired.objects, snap.objects, { prune, origin: opts.scope?.origin });
    const takenOver = opts.scope ? notCreatedBySource(changes, snap.objects, loaded.manifests, opts.scope) : [];
    if (takenOver.length) return { ...base, errors: takenOver, ok: false, changes: [], counts: countChanges([]) };
    const result: ApplyResult = { ...base, ok: true, changes, counts: countChanges(changes) };
    if (opts.dryRun || changes.length === 0) return result;

    const w: WriteContext = { trx, box: s.secretBox, snap, removedDeployments: result.removedDeployments };
    const want = new Map(desired.objects.map((o) => [stateKey(o), o]));
    const have = new Map(snap.objects.map((o) => [stateKey(o), o]));
    const dependencySyncs: ObjectState[] = [];
    for (const c of changes) {
      const key = stateKey(c);
      const d = want.get(key);
      const a = have.get(key);
      const fieldNames = c.fields.map((f) => f.field);
      let id = a?.id ?? null;
      if (c.action === 'create') id = await createObject(w, d!);
      else if (c.action === 'update') await updateObject(w, d!, a!.id!, fieldNames);
      else if (c.action === 'delete') {
        await deleteObject(w, c.kind, a!.id!, c.name).catch((e: unknown) => {
          if (e instanceof ObjectInUse) e.at = { path: c.path, revision };
          throw e;
        });
      }
      if (c.action === 'orphan') continue;
      const envId = c.environment ? snap.envIds.get(c.environment) : undefined;
      if ((c.kind === 'Server' || c.kind === 'Service') && envId && !result.placementChanged.includes(envId)) result.placementChanged.push(envId);
      if (c.kind === 'Environment' && c.action === 'update' && fieldNames.includes('sshPrivateKey')) result.sshKeyChanged.push(id!);
      // no plan follows an ingress-only change: the proxies are told (after commit, every replica)
      if (c.kind === 'Service' && c.action === 'update' && envId && fieldNames.includes('ingress')) await s.events.publish(INGRESS_CHANGED, envId, { serviceId: id }, trx);
      if (c.kind === 'Service' && d && (c.action === 'create' || fieldNames.includes('dependsOn'))) dependencySyncs.push(d);
      if (c.kind === 'Service' && d && (c.action === 'create' || fieldNames.some((f) => DEPLOYED_FIELDS.has(f)))) {
        result.changedServices.push({ id: id!, environmentId: snap.envIds.get(d.environment!)!, name: d.name, imageTag: d.fields.imageTag as string });
      }
      await s.audit.record({
        ...(opts.actor ? { actorType: opts.actor.type, actorId: opts.actor.id, actorName: opts.actor.name } : { actorType: 'manifest', actorName: c.path }),
        action: `manifest.${c.action}`, resourceType: resourceTypeOfKind(c.kind), resourceId: id,
        environmentId: c.kind === 'Environment' ? id : snap.envIds.get(c.environment!) ?? null,
        details: { source: 'manifest', path: c.path, name: c.name, fields: fieldNames, revision: revision.gitCommit ?? revision.contentHash },
        requestId: opts.requestId ?? null,
      }, trx);
    }
    for (const d of dependencySyncs) await syncDependencies(w, d);
    // Configuration a service uses changed: redeploy it (the desired objects hold the new state).
    const already = new Set(result.changedServices.map((c) => c.id));
    for (const name of servicesAffectedByConfig(changes, desired.objects)) {
      const [env, svc] = name.split('/');
      const id = snap.ids.get(`${env}/Service/${svc}`);
      const d = want.get(stateKey({ kind: 'Service', environment: env, name: svc }));
      if (id && d && !already.has(id)) result.changedServices.push({ id, environmentId: snap.envIds.get(env)!, name: svc, imageTag: d.fields.imageTag as string });
    }
    return result;
  });
}

/**
 * A service may name an image that is not in the folder but in the store (made by another
 * manifest revision or the API): compare by its imageName, as for images of the folder.
 */
function referToStoredImages(desired: ObjectState[], actual: ObjectState[]) {
  const inFolder = new Set(desired.filter((o) => o.kind === 'ContainerImage').map((o) => `${o.environment}/${o.name}`));
  for (const svc of desired.filter((o) => o.kind === 'Service')) {
    if (inFolder.has(`${svc.environment}/${svc.fields.image}`)) continue;
    const stored = actual.find((o) => o.kind === 'ContainerImage' && o.environment === svc.environment && (o.source?.name === svc.fields.image || o.name === svc.fields.image));
    if (stored) svc.fields.image = stored.name;
  }
}

/** A Git source is an environment's: its manifests name that environment, and never an Environment (its source would own itself). */
function outOfScope(manifests: Manifest[], scope: SourceScope): ManifestError[] {
  return manifests.flatMap((m) => {
    if (m.kind === 'Environment') {
      return [{ file: m.file, line: m.line, column: 1, path: 'kind', message: `an environment's Git source cannot hold Environment manifests (this source belongs to ${scope.environment})` }];
    }
    if (m.metadata.environment !== undefined && m.metadata.environment !== scope.environment) {
      return [{ file: m.file, ...m.positionOf(['metadata', 'environment']), path: 'metadata/environment', message: `this source belongs to the environment ${scope.environment}, not ${m.metadata.environment}` }];
    }
    return [];
  });
}

/** Who made an object a source found in the store, in words. */
function ownerOf(a: ObjectState): string {
  if (!a.source) return 'made through the API';
  if (!a.source.origin) return `applied from ${a.source.path} by the manifests folder or POST /api/manifests/apply`;
  return `applied by another Git source (${a.source.repository ?? a.source.origin})`;
}

/**
 * A Git source never takes over an object it did not create (docs/git-sources.md): an object of
 * the same kind and name made through the API, the folder or an API apply is a conflict of the
 * commit at the manifest that names it, and the commit applies nothing. Without this, a committer
 * could take an API-made image or service out of its owners' hands by naming it.
 */
function notCreatedBySource(changes: Change[], actual: ObjectState[], manifests: Manifest[], scope: SourceScope): ManifestError[] {
  const have = new Map(actual.map((a) => [stateKey(a), a]));
  return changes.flatMap((c) => {
    const a = c.action === 'update' ? have.get(stateKey(c)) : undefined;
    if (!a || a.source?.origin === scope.origin) return [];
    const m = manifests.find((x) => x.kind === c.kind && x.metadata.environment === c.environment
      && (kindOf(x.kind).manifest.identity ? x.spec[kindOf(x.kind).manifest.identity!] : x.metadata.name) === c.name);
    return [{
      file: c.path, line: m?.line ?? 1, column: 1, path: 'metadata/name',
      message: `conflict: ${c.kind} '${c.name}' of environment ${c.environment} already exists, ${ownerOf(a)}; this source did not create it `
        + 'and never takes it over (rename it in the repository, or delete the existing one first)',
    }];
  });
}

function unsupported(manifests: Manifest[]): ManifestError[] {
  return manifests.filter((m) => !SUPPORTED_KINDS.includes(m.kind)).map((m) => ({
    file: m.file, line: m.line, column: 1, path: 'kind',
    message: `${m.kind} manifests are validated but this controller cannot apply them yet (it applies ${SUPPORTED_KINDS.join(', ')})`,
  }));
}
