import { arrayOf, bool, enumOf, int, object, str, uuid, type Schema } from '../http/schema.js';

/** Schemas shared by the config routes; the kinds' own fields are in controller/kinds/config-fields.ts. */
export {
  description, fileName, fragmentName, keySchema, namedRef, READ_ONLY_META, secretRead, templateContent, usageSchema, varRead,
} from '../../controller/kinds/config-fields.js';

export const fileMode: Schema = str({ pattern: '^0?[0-7]{3}$' });
export const dryRunBody: Schema = object({ dryRun: bool });

export const targetResult: Schema = {
  type: 'object',
  properties: {
    attachmentId: uuid, configFileId: uuid, configFileName: str(), serviceId: uuid, serverId: uuid, serverName: str(),
    deploymentId: uuid, containerName: str(), targetPath: str({ description: 'Inside the container' }),
    hostPath: str({ description: 'On the server' }), mode: int(),
    status: enumOf('written', 'unchanged', 'failed', 'skipped', 'would-create', 'would-change', 'restored', 'removed'),
    error: str(), diff: str(), contentHash: str(),
  },
};
export const syncResult: Schema = object({
  dryRun: bool, status: enumOf('succeeded', 'partial', 'failed'), targets: arrayOf(targetResult),
});
