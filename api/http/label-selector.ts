// The lists' `labelSelector` query (GET servers, GET services): `role=web,zone=a`, Kubernetes' rules.
import { validationError } from '../../controller/errors/app-error.js';
import { parseLabelSelector } from '../../controller/placement/labels.js';
import { str } from './schema.js';

/** `?labelSelector=role=web,zone=a` as pairs (400 when it is not key=value pairs with valid keys and values). */
export function labelSelectorOf(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  try {
    return parseLabelSelector(text);
  } catch (e) {
    throw validationError(`labelSelector: ${(e as Error).message}`, 'labelSelector', 'e.g. labelSelector=role=web,zone=a');
  }
}

export const labelSelectorQuery = str({ maxLength: 2000, description: 'key=value pairs separated by commas (role=web,zone=a)' });
