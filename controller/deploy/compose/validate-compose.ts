// Compose path rule 5: before any rollout, the document (generated, template-authored or a file
// on disk) must define a service keyed exactly by the deployment's containerName.
import { readYamlValue } from '../../yaml/read-yaml.js';
import { validationError } from '../../errors/app-error.js';

export type ComposeDocument = { services: Record<string, Record<string, unknown>> } & Record<string, unknown>;

export function parseCompose(text: string, where: string): ComposeDocument {
  const doc = readYamlValue(text, where, 'composeTemplate');
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw validationError(`${where} must be a YAML mapping`, 'composeTemplate');
  const services = (doc as Record<string, unknown>).services;
  if (!services || typeof services !== 'object' || Array.isArray(services)) {
    throw validationError(`${where} has no services mapping`, 'composeTemplate', 'Add a top-level "services:" mapping');
  }
  return doc as ComposeDocument;
}

/** Throws an actionable VALIDATION_ERROR unless `services.<containerName>` exists. */
export function assertDefinesContainer(doc: ComposeDocument, containerName: string, where: string): void {
  if (Object.hasOwn(doc.services, containerName) && doc.services[containerName] && typeof doc.services[containerName] === 'object') return;
  const found = Object.keys(doc.services);
  throw validationError(
    `${where} does not define a service keyed "${containerName}" (found: ${found.length ? found.join(', ') : 'none'})`,
    'containerName',
    `Rename the compose service to "${containerName}" or change the deployment's containerName to match`,
  );
}
