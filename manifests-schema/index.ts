/**
 * Every manifest kind, by name, as the kind descriptors (controller/kinds/) define them. The
 * *.schema.json files beside this one and docs/manifests.md are generated from the descriptors
 * by `npx tsx manifests-schema/build.ts`.
 */
import { documentSchema, schemaFileName } from '../controller/kinds/document-schema.js';
import { KINDS, KIND_NAMES } from '../controller/kinds/index.js';
import type { Schema } from '../controller/kinds/schema.js';

export { RESERVED_LABEL_PREFIX } from '../controller/kinds/manifest-fields.js';
export { KINDS, KIND_NAMES, schemaFileName };

/** kind -> draft-07 schema of a whole document. */
export const SCHEMAS: Record<string, Schema> = Object.fromEntries(KINDS.map((k) => [k.kind, documentSchema(k)]));
