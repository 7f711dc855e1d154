/**
 * Every manifest kind, by name. The *.schema.json files beside this one and docs/manifests.md
 * are generated from these definitions by `npx tsx manifests-schema/build.ts`.
 */
import { documentSchema, type KindDefinition, type Schema } from './kinds/common.js';
import { containerImage, environment, registry, server, serverCluster } from './kinds/infrastructure.js';
import { connection, database, externalEntity, service } from './kinds/workloads.js';
import { configFile, configFragment, secret, variable, webhookSubscription } from './kinds/configuration.js';

export { RESERVED_LABEL_PREFIX } from './kinds/common.js';
export type { KindDefinition };

export const KINDS: KindDefinition[] = [
  environment, server, registry, containerImage, service, configFile, configFragment, variable, secret,
  database, webhookSubscription, serverCluster, externalEntity, connection,
];

export const KIND_NAMES = KINDS.map((k) => k.kind);

/** kind -> draft-07 schema of a whole document. */
export const SCHEMAS: Record<string, Schema> = Object.fromEntries(KINDS.map((k) => [k.kind, documentSchema(k)]));

export const schemaFileName = (kind: string) => `${kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}.schema.json`;
