// What the manifests routes answer, written from controller/manifests (ApplyResult, Change,
// ApplyRecord, DegradedObject). `from`/`to` of a field change are whatever the field holds.
import { arrayOf, bool, condition, enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid, type Schema } from '../http/schema.js';

const anyValue: Schema = { description: 'The field\'s value: any JSON (secrets appear only as secret: true)' };
const revision = object({ contentHash: str(), gitCommit: nullable(str()) }, ['contentHash', 'gitCommit']);
const counts = object({ create: int(0), update: int(0), delete: int(0), orphan: int(0) }, ['create', 'update', 'delete', 'orphan']);
export const manifestError = object({ file: str(), line: int(0), column: int(0), path: str(), message: str() }, ['file', 'line', 'column', 'path', 'message']);
const change = object({
  action: enumOf('create', 'update', 'delete', 'orphan'), kind: str(), environment: str(), name: str(), path: str(),
  fields: arrayOf(object({ field: str(), from: anyValue, to: anyValue, secret: bool }, ['field'])), sourceOnly: bool,
}, ['action', 'kind', 'name', 'path', 'fields']);
const degraded = object({
  kind: enumOf('Service'), environment: str(), name: str(), reason: str(), message: str(), desiredImageTag: nullable(str()), runningImageTags: arrayOf(str()),
}, ['kind', 'environment', 'name', 'reason', 'message', 'desiredImageTag', 'runningImageTags']);
/** The last attempted or applied manifests apply (controller/manifests ApplyRecord); null before the first. */
export const applyRecord = nullable(object({
  at: timestamp, trigger: enumOf('watch', 'api', 'startup'), revision, ok: bool, counts, errors: arrayOf(manifestError), plans: arrayOf(uuid), message: str(),
}, ['at', 'trigger', 'revision', 'ok', 'counts', 'errors', 'plans']));

export const sourceStatus = object({
  environmentId: uuid, environment: str(), url: str(), ref: nullable(str()), path: str(),
  sync: enumOf('Synced', 'OutOfSync', 'Syncing', 'Failed'),
  generation: int(1, undefined, { description: 'Bumped by each save of the source and each sync asked for (push webhook, POST …/sync)' }),
  observedGeneration: nullable(int(0, undefined, { description: 'The generation the last reconcile pass ended at; below generation: a sync is asked for' })),
  conditions: arrayOf(condition, { description: 'Ready (Synced | SyncFailed), Progressing (Syncing | SyncRequested | Idle), Degraded (FetchFailed | ManifestsInvalid | ApplyFailed | AsDesired)' }),
  requestedAt: nullableTimestamp,
  requestedCommit: nullable(str({ description: 'The commit the push that asked for the newest generation named' })),
  revision: nullable(object({ commit: str(), author: str(), message: str(), committedAt: str() })),
  lastFetchAt: nullableTimestamp, fetchedCommit: nullable(str()),
  error: str({ description: 'Why the last attempt failed; the commit applied before stays applied' }),
  errors: arrayOf(manifestError),
  lastAttempt: nullable(object({
    at: str(), trigger: str(), ok: bool, commit: nullable(str()), plans: arrayOf(uuid),
    counts: object({ create: int(0), update: int(0), delete: int(0), orphan: int(0) }),
  })),
}, ['environmentId', 'sync', 'revision', 'lastFetchAt']);

export const manifestsStatus = object({
  dir: nullable(str()), prune: bool, watching: bool, lastAttempted: applyRecord, lastApplied: applyRecord, degraded: arrayOf(degraded),
  sources: arrayOf(sourceStatus, { description: 'The environments\' Git sources and their sync state' }),
}, ['dir', 'prune', 'watching', 'lastAttempted', 'lastApplied', 'degraded', 'sources']);

export const manifestsDiff = object({
  ok: bool, revision, errors: arrayOf(manifestError), changes: arrayOf(change), counts, degraded: arrayOf(degraded),
}, ['ok', 'revision', 'errors', 'changes', 'counts', 'degraded']);

/** What the next sync of a Git source would do: its fetched commit and the dry run of it. */
export const sourceDiff = object({
  ok: bool, commit: object({ commit: str(), author: str(), message: str(), committedAt: str() }, ['commit', 'author', 'message', 'committedAt']),
  errors: arrayOf(manifestError), changes: arrayOf(change), counts, degraded: arrayOf(degraded),
}, ['ok', 'commit', 'errors', 'changes', 'counts', 'degraded']);

export const manifestsApplied = object({
  ok: { type: 'boolean', enum: [true] }, dryRun: bool, revision, changes: arrayOf(change), counts, plans: arrayOf(uuid),
}, ['ok', 'dryRun', 'revision', 'changes', 'counts', 'plans']);
