import { rm } from 'node:fs/promises';
import type { Services } from '../../controller/services.js';
import { conflict, notFound, validationError } from '../../controller/errors/app-error.js';
import { KINDS } from '../../controller/kinds/index.js';
import { displayUrl, parseGitUrl, PATH_PATTERN, REF_PATTERN } from '../../controller/manifests/git/git-url.js';
import type { GitSourceRow } from '../../controller/store/repositories/git-sources.js';
import { sourceView, statusView } from '../../controller/manifests/git/source-view.js';
import { fileSourcePath } from '../../controller/manifests/git/file-roots.js';
import { CODE_HOST_TYPES, repositoryOf, type CodeHostType } from '../../controller/manifests/git/commit-status.js';
import { cacheDirOf, diffSource, enqueueSource, forgetSource, requestSync } from '../../controller/manifests/git/sync-source.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, nullable, object, str, timestamp, uuid } from '../http/schema.js';
import { environmentOf } from './loaders.js';
import { sourceDiff, sourceStatus } from './manifest-schemas.js';
import { degradedObjects } from '../../controller/manifests/status.js';
import { exportEnvironment, exportServer } from '../../controller/manifests/export.js';
import { MAX_TTL_HOURS, previewsProblem, type PreviewsConfig } from '../../controller/manifests/git/preview-config.js';
import { serverSelectorSchema } from '../../controller/placement/labels.js';

const writeOnly = (maxLength: number) => ({ ...nullable(str({ minLength: 1, maxLength })), writeOnly: true });
const previewsSchema = object({
  pullRequests: { ...bool, description: 'Each open pull request against the source\'s branch gets an environment <env>-pr-<number> from the same manifests at its head' },
  branches: str({ minLength: 1, maxLength: 255, description: 'Branch previews (a glob): not built yet, refused' }),
  serverSelector: { ...serverSelectorSchema, description: 'The parent environment\'s servers a preview runs on (all of them that match); never any other' },
  ttlHours: int(1, MAX_TTL_HOURS, { description: 'Hours since the pull request last changed after which its preview is torn down' }),
  secrets: arrayOf(str({ pattern: '^[A-Z_][A-Z0-9_]*$', maxLength: 200 }), { maxItems: 200, uniqueItems: true, description: 'The parent\'s secrets a preview may use by reference (${NAME} in a service\'s env); a preview naming any other fails' }),
  hostTemplate: str({ minLength: 1, maxLength: 253, description: 'The ingress host of a preview: {number} is the pull request\'s, e.g. pr-{number}.example.com; a preview service\'s ingress serves it instead of its hosts' }),
}, ['pullRequests', 'serverSelector'], { description: 'Preview environments per pull request (docs/git-sources.md#previews); omitted keeps them, null removes them' });
const sourceBody = object({
  url: str({ minLength: 1, maxLength: 2048, description: 'https://, ssh://, git@host:repository or file:// (http:// and git:// only without credentials)' }),
  ref: nullable(str({ pattern: REF_PATTERN, description: 'Branch or tag; null or omitted: the remote\'s HEAD' })),
  path: str({ pattern: PATH_PATTERN, description: 'Folder inside the repository (default ".")' }),
  pollIntervalSec: int(0, 86400, { description: 'Seconds between fetches (default 60); 0: webhook and manual syncs only' }),
  prune: { ...bool, description: 'Delete what a commit no longer holds (through plans); default false' },
  sshPrivateKey: { ...writeOnly(16384), description: 'Deploy key for ssh URLs (write-only; omitted keeps the saved one, null removes it)' },
  username: nullable(str({ minLength: 1, maxLength: 200 })),
  token: { ...writeOnly(4096), description: 'Token for https URLs (write-only; omitted keeps the saved one, null removes it)' },
  codeHost: nullable(object({
    type: enumOf(...CODE_HOST_TYPES),
    apiUrl: str({ minLength: 1, maxLength: 2048, description: 'The API root: https://api.github.com, or https://gitea.example/api/v1' }),
    token: { ...str({ minLength: 1, maxLength: 4096 }), writeOnly: true, description: 'May set commit statuses (write-only; omitted keeps the saved one for the same apiUrl)' },
  }, ['type', 'apiUrl'], { description: 'Posts commit statuses (pending, then success or failure) to the code host; omitted keeps it, null removes it' })),
  previews: nullable(previewsSchema),
}, ['url']);
const sourceRead = object({
  id: uuid, environmentId: uuid, url: str(), ref: nullable(str()), path: str(), pollIntervalSec: int(0), prune: bool,
  username: nullable(str()), hasToken: bool, hasSshPrivateKey: bool,
  sshKnownHosts: nullable(str({ description: 'The ssh host key pinned at the first fetch' })),
  codeHost: nullable(object({ type: enumOf(...CODE_HOST_TYPES), apiUrl: str(), hasToken: bool }, ['type', 'apiUrl', 'hasToken'])),
  previews: nullable(previewsSchema),
  createdAt: timestamp, updatedAt: timestamp,
});

interface SourceBody {
  url: string; ref?: string | null; path?: string; pollIntervalSec?: number; prune?: boolean; sshPrivateKey?: string | null; username?: string | null; token?: string | null;
  codeHost?: { type: CodeHostType; apiUrl: string; token?: string } | null;
  previews?: PreviewsConfig | null;
}

/** Tables whose rows carry a manifest `source` (every stored kind, and deployments). */
const OWNED_TABLES = [...new Set([...KINDS.filter((k) => k.table).map((k) => k.table!), 'deployments'])];

/** An environment's Git source of manifests (docs/git-sources.md). */
export default function manifestsSourceRoutes(s: Services) {
  const env = environmentOf(s);
  const sourceOf = async (envId: string) => {
    const row = await s.gitSources.ofEnvironment(envId);
    if (!row) throw notFound('Manifests source');
    return row;
  };

  /** The code host of a PUT: checked (its URL through the outgoing guard, a repository the source URL names), its token sealed. */
  const codeHostOf = async (body: SourceBody, current: GitSourceRow | undefined) => {
    const none = { codeHostType: null, codeHostApiUrl: null, codeHostTokenSealed: null };
    if (body.codeHost === undefined) {
      return current ? { codeHostType: current.codeHostType, codeHostApiUrl: current.codeHostApiUrl, codeHostTokenSealed: current.codeHostTokenSealed } : none;
    }
    if (body.codeHost === null) return none;
    const { type, apiUrl, token } = body.codeHost;
    if (!/^https?:\/\//i.test(apiUrl)) throw validationError('codeHost.apiUrl must be an http:// or https:// URL', 'codeHost.apiUrl');
    await s.outgoing.validate(apiUrl, 'codeHost.apiUrl');
    if (!repositoryOf(body.url)) throw validationError('codeHost: the source URL names no owner/repository (its path needs two segments) to post commit statuses to', 'codeHost');
    const kept = current?.codeHostApiUrl === apiUrl ? current.codeHostTokenSealed : null;
    const tokenSealed = token ? s.secretBox.seal(token) : kept;
    if (!tokenSealed) throw validationError('codeHost.token is required (a token that may set commit statuses)', 'codeHost.token');
    return { codeHostType: type, codeHostApiUrl: apiUrl, codeHostTokenSealed: tokenSealed };
  };

  return [
    route<unknown, { serverId?: string }>({
      method: 'GET', path: '/api/environments/{envId}/manifests/export', operationId: 'exportManifests', tag: 'manifests', access: 'admin',
      load: env, query: { serverId: uuid }, response: str(), responseType: 'application/yaml', errors: [404, 502, 503],
      summary: 'The environment as manifests, or with serverId the containers on that server no service owns yet, adopting them as they run (a YAML stream)',
      description: 'Ready to commit to a Git source (docs/git-sources.md#adopting-what-already-runs). Secret values are never written: a Secret, '
        + 'a secret field and an env value whose key looks secret (PASS, SECRET, TOKEN, KEY, …) become SOPS placeholders. With serverId, each '
        + 'running container without Stevedore\'s labels becomes a Service whose deployment adopts it by id (deployments[].adoptContainerId): '
        + 'applied as it is, it changes no running container. Admin: the export reads the env of running containers. '
        + 'A server that cannot be asked answers 502 or 503, as its other routes.',
      async handler(_ctx, { resource, query }) {
        let text: string;
        if (query.serverId) {
          const server = await s.servers.findById(query.serverId);
          if (!server || server.environmentId !== resource.id) throw notFound('Server');
          text = await exportServer(s, resource, server);
        } else text = await exportEnvironment(s, resource);
        return result(200, text, { 'content-type': 'application/yaml; charset=utf-8' });
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/manifests-source', operationId: 'getManifestsSource', tag: 'manifests', access: 'viewer',
      load: env, response: sourceRead, errors: [404], summary: 'The environment\'s Git source of manifests; credentials are never shown',
      handler: async (_ctx, { resource }) => sourceView(await sourceOf(resource.id)),
    }),

    route<SourceBody>({
      method: 'PUT', path: '/api/environments/{envId}/manifests-source', operationId: 'putManifestsSource', tag: 'manifests', access: 'admin',
      load: env, body: sourceBody, response: sourceRead,
      summary: 'Set the environment\'s Git source: it is fetched and applied at once, then on its poll interval and on push webhooks',
      description: 'Credentials are write-only and sealed: a token for https:// URLs (through a credential helper, never on a command line), '
        + 'a deploy key for ssh URLs (its host key is pinned at the first fetch; a changed URL pins again). Manifests of the source must name this '
        + 'environment; the fields they set are refused to API writes (409 naming the file and commit).',
      async handler(ctx, { resource, body }) {
        const remote = parseGitUrl(body.url);
        if ('problem' in remote) throw validationError(`url ${remote.problem}`, 'url');
        if (remote.host) await s.outgoing.validate(body.url.includes('://') ? body.url : `ssh://${remote.host}`, 'url');
        if (remote.transport === 'file') {
          const local = fileSourcePath(body.url, s.config.gitFileRoots, s.config.stateDir);
          if ('problem' in local) throw validationError(`url ${local.problem}`, 'url');
        }
        const current = await s.gitSources.ofEnvironment(resource.id);
        const sameUrl = current?.url === body.url;
        const keep = <T>(v: T | null | undefined, saved: T | null) => (v === undefined ? (sameUrl ? saved : null) : v);
        const sshSealed = body.sshPrivateKey ? s.secretBox.seal(body.sshPrivateKey) : keep(body.sshPrivateKey, current?.sshPrivateKeySealed ?? null);
        const tokenSealed = body.token ? s.secretBox.seal(body.token) : keep(body.token, current?.tokenSealed ?? null);
        if (sshSealed && remote.transport !== 'ssh') throw validationError('sshPrivateKey is for ssh:// and git@host:repository URLs', 'sshPrivateKey');
        if (tokenSealed && remote.transport !== 'https') throw validationError('a token is only sent over https://', 'token');
        if (body.sshPrivateKey && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(body.sshPrivateKey)) throw validationError('sshPrivateKey must be a private key in PEM or OpenSSH form', 'sshPrivateKey');
        const codeHost = await codeHostOf(body, current);
        const previews = body.previews === undefined ? current?.previews ?? null : body.previews;
        const problem = previews && previewsProblem(previews);
        if (problem) throw validationError(problem.message, problem.field);
        const row = await s.gitSources.save(resource.id, {
          url: body.url, ref: body.ref ?? null, path: (body.path ?? '.').replace(/^\.\/+/, '').replace(/\/+$/, '') || '.',
          pollIntervalSec: body.pollIntervalSec ?? 60, prune: body.prune ?? false,
          sshPrivateKeySealed: sshSealed, tokenSealed, username: body.username === undefined ? (sameUrl ? current?.username ?? null : null) : body.username,
          // a new remote is a new host: its key is pinned again at the next fetch
          knownHosts: sameUrl ? current?.knownHosts ?? null : null,
          ...codeHost, previews,
        });
        ctx.state.audit = { environmentId: resource.id, details: { fields: Object.keys(body), url: displayUrl(body.url), ref: body.ref ?? null } };
        // the save asked for the sync (generation + 1): its pass runs from the queue
        enqueueSource(s, row.id);
        return sourceView(row);
      },
    }),

    route({
      method: 'DELETE', path: '/api/environments/{envId}/manifests-source', operationId: 'deleteManifestsSource', tag: 'manifests', access: 'admin',
      load: env, status: 204, errors: [404, 409],
      summary: 'Stop following the Git source: what it applied stays, owned by no manifest (the API may change it again)',
      description: 'While the source has previews, 409: their reconciler is the source\'s; set previews to null (they are torn down) and delete it once none is listed.',
      async handler(ctx, { resource }) {
        const row = await sourceOf(resource.id);
        // a preview without its source would have nobody to tear it down (its rows go with the source)
        const open = await s.previews.ofEnvironment(resource.id);
        if (open.length) {
          throw conflict(`the source still has ${open.length} preview${open.length === 1 ? '' : 's'} (${open.map((p) => `#${p.number}`).join(', ')})`,
            'PUT the source with previews: null, then delete it once GET …/previews lists none');
        }
        await s.gitSources.removeOf(resource.id);
        await s.gitSources.releaseOwnership(`git:${resource.id}`, OWNED_TABLES);
        forgetSource(s, row.id);
        await rm(cacheDirOf(s, row.id), { recursive: true, force: true });
        ctx.state.audit = { environmentId: resource.id, details: { url: displayUrl(row.url) } };
        return undefined;
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/manifests-source/sync', operationId: 'syncManifestsSource', tag: 'manifests', access: 'operator',
      load: env, status: 202, response: sourceStatus, errors: [404],
      summary: 'Fetch the source now and apply its commit; answers once the sync asked for is stored and queued (the status shows its progress and outcome)',
      description: 'The answer is the status after the request: its generation is one more than observedGeneration and Progressing is '
        + 'SyncRequested until a reconcile pass takes the source (then Syncing).',
      async handler(ctx, { resource }) {
        const row = (await requestSync(s, (await sourceOf(resource.id)).id, 'api')) ?? await sourceOf(resource.id);
        ctx.state.audit = { environmentId: resource.id, details: { url: displayUrl(row.url) } };
        return result(202, statusView(row, resource.name));
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/manifests-source/diff', operationId: 'diffManifestsSource', tag: 'manifests', access: 'operator',
      load: env, response: sourceDiff, errors: [404, 503],
      summary: 'What the next sync would do: fetches the source\'s ref and diffs that commit against the store, applying nothing',
      description: 'The same dry run a sync runs before it applies (SOPS files decrypted in memory, secret values never shown). A commit with '
        + 'errors answers 200 with ok: false and every error with its file:line; a failed fetch answers 503. The source\'s status is not changed.',
      async handler(_ctx, { resource }) {
        const row = await sourceOf(resource.id);
        const d = await diffSource(s, row);
        const counts = d.result?.counts ?? { create: 0, update: 0, delete: 0, orphan: 0 };
        const degraded = (await degradedObjects(s)).filter((x) => x.environment === resource.name);
        return { ok: !d.errors.length && !!d.result?.ok, commit: d.commit, errors: d.errors.map(({ refused: _r, ...x }) => x), changes: d.result?.changes ?? [], counts, degraded };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/manifests-source/status', operationId: 'getManifestsSourceStatus', tag: 'manifests', access: 'viewer',
      load: env, response: sourceStatus, errors: [404],
      summary: 'Synced, OutOfSync, Syncing or Failed; the applied commit, the last fetch, and the errors of a failed commit with file:line',
      handler: async (_ctx, { resource }) => statusView(await sourceOf(resource.id), resource.name),
    }),
  ];
}
