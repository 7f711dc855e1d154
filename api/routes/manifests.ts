import type { Services } from '../../controller/services.js';
import { AppError, validationError } from '../../controller/errors/app-error.js';
import { runApply } from '../../controller/manifests/run-apply.js';
import { degradedObjects, manifestsStatusOf } from '../../controller/manifests/status.js';
import { formatError, type ManifestError, type ManifestFile } from '../../controller/manifests/types.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, object, str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { isLoweredSomewhere, type Reach } from '../../controller/auth/policy.js';
import { manifestsApplied, manifestsDiff, manifestsStatus } from './manifest-schemas.js';
import { statusView } from '../../controller/manifests/git/source-view.js';

const sourceStatuses = async (s: Services) => {
  const rows = await s.gitSources.listAll();
  const names = new Map((await s.environments.findByIds(rows.map((r) => r.environmentId))).map((e) => [e.id, e.name]));
  return rows.map((r) => statusView(r, names.get(r.environmentId) ?? ''));
};

const files = arrayOf(object({
  path: str({ minLength: 1, maxLength: 1000, pattern: '^(?!/)(?!.*(^|/)\\.\\.(/|$)).*\\.ya?ml$' }),
  content: str({ maxLength: 1048576 }),
}, ['path', 'content']), { maxItems: 5000, description: 'The folder, as the CLI reads it; omitted: MANIFESTS_DIR' });

const applyBody = object({ files, dryRun: bool, prune: bool });
const diffBody = object({ files, prune: bool });

function filesOrDir(s: Services, body: { files?: ManifestFile[] }) {
  if (!body.files && !s.config.manifestsDir) throw validationError('Send files, or set MANIFESTS_DIR on the controller', 'files');
  return body.files;
}

/**
 * A file refused by a limit (alias expansions, documents per request: controller/yaml/read-yaml.ts)
 * was not read at all: 400 on diff too, where other manifest errors answer 200 with ok: false.
 */
function throwIfRefused(r: { errors: ManifestError[]; revision: unknown }) {
  const refused = r.errors.find((e) => e.refused);
  if (refused) throw new AppError('VALIDATION_ERROR', `${formatError(refused)}; nothing was read further`, { field: 'files', details: { errors: r.errors, revision: r.revision } });
}

const actorOf = (ctx: Ctx) => {
  const a = ctx.state.actor!;
  return { type: a.type, id: a.id, name: a.name };
};

/**
 * Manifests: status (viewer), diff (operator: read-only) and apply (admin, since a folder may
 * create and delete environments). Invalid folders answer 400 VALIDATION_ERROR carrying every
 * error in `errors` (diff answers 200 with ok: false, so a CI can print them).
 */
/**
 * Where an apply (or a diff) acts: the environments of a dry run's changes, each of which the
 * caller must hold the route's role in (the route runner checks, policy.ts); a new environment
 * is a change to the installation. A caller lowered nowhere holds their role everywhere: no dry run.
 */
/** A field change that makes a server, or an environment's default, socket mode. */
const makesSocket = (f: { field: string; to?: unknown }) =>
  (/(^|\.)(dockerMode|defaultDockerMode)$/i.test(f.field) && f.to === 'socket')
  || JSON.stringify(f.to ?? null).includes('"defaultDockerMode":"socket"');

function environmentsChanged(s: Services) {
  return async (ctx: Ctx, { body }: { body: { files?: ManifestFile[]; prune?: boolean } }): Promise<Reach> => {
    if (!isLoweredSomewhere(ctx.state.actor!)) return 'installation';
    const preview = await runApply(s, 'api', { files: filesOrDir(s, body), prune: body.prune, dryRun: true, actor: actorOf(ctx) });
    const names = new Set(preview.changes.map((c) => (c.kind === 'Environment' ? c.name : c.environment)).filter((n): n is string => !!n));
    const ids = new Map<string, string>();
    for (const name of names) {
      const env = await s.environments.findByName(name);
      if (!env) return 'installation';
      ids.set(name, env.id);
    }
    // socket mode makes a server the controller's own machine, as over the API (servers.ts)
    for (const c of preview.changes) {
      if (c.fields.some(makesSocket)) return 'installation';
      if (c.kind === 'Server' && c.action === 'create' && c.environment && ids.has(c.environment)) {
        const operations = await s.settings.get<{ defaultDockerMode?: string }>(ids.get(c.environment)!, 'operations');
        if (operations.defaultDockerMode === 'socket') return 'installation';
      }
    }
    return [...ids.values()];
  };
}

export default function manifestRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/manifests/status', operationId: 'getManifestsStatus', tag: 'manifests', access: 'viewer',
      summary: 'The manifests folder, whether it is watched, the last attempted and applied revisions with their results, the objects that are Degraded, and each environment\'s Git source (sync state, applied commit, errors)',
      response: manifestsStatus,
      async handler() {
        const st = manifestsStatusOf(s);
        return {
          dir: s.config.manifestsDir, prune: s.config.manifestsPrune, watching: st.watching, lastAttempted: st.lastAttempted, lastApplied: st.lastApplied,
          degraded: await degradedObjects(s),
          sources: await sourceStatuses(s),
        };
      },
    }),

    route<{ files?: ManifestFile[]; prune?: boolean }>({
      method: 'POST', path: '/api/manifests/diff', operationId: 'diffManifests', tag: 'manifests', access: 'operator', audit: false,
      summary: 'What applying these files (or MANIFESTS_DIR) would change; writes nothing', body: diffBody, response: manifestsDiff, errors: [400],
      description: 'Manifest errors answer 200 with ok: false; a file refused by a parser limit (alias expansions, more than 10000 documents) answers 400.',
      actsIn: environmentsChanged(s),
      async handler(ctx, { body }) {
        const r = await runApply(s, 'api', { files: filesOrDir(s, body), prune: body.prune, dryRun: true, actor: actorOf(ctx) });
        throwIfRefused(r);
        // what the store says is not what runs: the CLI prints it instead of "No changes"
        return { ok: r.ok, revision: r.revision, errors: r.errors, changes: r.changes, counts: r.counts, degraded: await degradedObjects(s) };
      },
    }),

    route<{ files?: ManifestFile[]; prune?: boolean; dryRun?: boolean }>({
      method: 'POST', path: '/api/manifests/apply', operationId: 'applyManifests', tag: 'manifests', access: 'admin',
      summary: 'Apply these files (or MANIFESTS_DIR) in one transaction; prune defaults to MANIFESTS_PRUNE', body: applyBody, errors: [400], response: manifestsApplied,
      description: 'An invalid folder answers 400 VALIDATION_ERROR with every problem in `errors` and the folder\'s `revision`; nothing is applied. '
        + 'dryRun: true answers what would change and writes nothing.',
      actsIn: environmentsChanged(s),
      async handler(ctx, { body }) {
        const files = filesOrDir(s, body);
        const r = await runApply(s, 'api', { files, prune: body.prune, dryRun: body.dryRun, actor: actorOf(ctx), requestId: ctx.state.requestId });
        throwIfRefused(r);
        if (!r.ok) {
          throw new AppError('VALIDATION_ERROR', `The manifests have ${r.errors.length} error(s); nothing was applied: ${formatError(r.errors[0])}`,
            { details: { errors: r.errors, revision: r.revision } });
        }
        // Each change is audited by the apply itself, with details.source 'manifest'.
        ctx.state.audit = { skip: true };
        return result(200, { ok: true, dryRun: r.dryRun, revision: r.revision, changes: r.changes, counts: r.counts, plans: r.plans });
      },
    }),
  ];
}
