import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import { jobProblem } from '../../controller/kinds/job.js';
import type { KindRouteHooks } from './kind-crud.js';
import type { VolumeRow } from '../../controller/store/repositories/volumes.js';
import { assertUnmounted } from './volumes.js';

/** autoLinkPattern is a regular expression matched against image names: it must compile. */
function assertPattern(pattern: unknown) {
  if (typeof pattern !== 'string') return;
  try {
    new RegExp(pattern);
  } catch {
    throw validationError('autoLinkPattern is not a valid regular expression', 'autoLinkPattern');
  }
}

/**
 * What the generic CRUD routes of some kinds do beyond their descriptor and repository, with the
 * services only the API layer holds; a kind not named here needs nothing more.
 */
export function kindRouteHooks(s: Services): Record<string, KindRouteHooks> {
  /** A var's or secret's reads say which config files and services use its key. */
  const withUsage: KindRouteHooks['present'] = async (rows, items) => {
    if (!rows.length) return items;
    const { keys } = await s.configStore.catalog.usage(rows[0].environmentId);
    return items.map((v, i) => ({ ...v, usage: keys.get(rows[i].key) ?? { configFiles: [], services: [] } }));
  };
  return {
    Registry: {
      async check(body) {
        assertPattern(body.autoLinkPattern);
        if (typeof body.registryUrl === 'string') await s.outgoing.validate(body.registryUrl, 'registryUrl');
      },
    },
    Var: { present: withUsage },
    Secret: { present: withUsage },
    // a rule across fields (a schedule in its time zone, a server or a selector): on the job as it would be
    Job: {
      check(body, row) {
        const p = jobProblem({ ...row, ...body });
        if (p) throw validationError(p.message, p.field);
      },
    },
    Volume: {
      // the record goes, the Docker volume and its data stay on the server (POST /api/volumes/{id}/destroy removes them)
      async beforeDelete(row) {
        await assertUnmounted(s, row as unknown as VolumeRow);
        for (const b of await s.volumeOps.ctx.backups.finishedOf(row.id)) await s.volumeOps.deleteBackup(b);
      },
    },
    Database: {
      // its backup records go with it, and their stored objects (a folder or S3) first
      async beforeDelete(row) {
        for (const b of await s.databaseOps.ctx.backups.finishedOf(row.id)) await s.databaseOps.deleteBackup(b);
      },
    },
  };
}
