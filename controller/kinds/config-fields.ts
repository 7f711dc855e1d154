/** Field schemas shared by the configuration kinds (vars, secrets, config files and fragments). */
import { FRAGMENT_NAME_PATTERN, KEY_PATTERN } from '../config-files/placeholders.js';
import { arrayOf, bool, nonEmpty, nullable, object, str, timestamp, uuid, type Schema } from './schema.js';

export const keySchema: Schema = str({ minLength: 1, maxLength: 128, pattern: KEY_PATTERN });
export const description: Schema = nullable(str({ maxLength: 2000 }));
export const namedRef: Schema = object({ id: uuid, name: str() }, ['id', 'name']);
export const usageSchema: Schema = object({ configFiles: arrayOf(namedRef), services: arrayOf(namedRef) });
/** Template text: 1 MiB at most (the JSON body limit). */
export const templateContent: Schema = str({ maxLength: 1_000_000 });
export const fragmentName: Schema = nonEmpty(100, { pattern: FRAGMENT_NAME_PATTERN });
/** A config file's name: no '/', no control characters, and not '.' or '..' (names end up in paths and downloads). */
export const fileName: Schema = nonEmpty(200, { pattern: '^(?!\\.{1,2}$)[^/\\u0000-\\u001f]+$' });

export const READ_ONLY_META = ['id', 'environmentId', 'createdAt', 'updatedAt', 'usage'];

export const secretRead: Schema = object({
  id: uuid, environmentId: uuid, key: str(), description: nullable(str()), hasValue: bool, usage: usageSchema,
  createdAt: timestamp, updatedAt: timestamp,
});
export const varRead: Schema = object({
  id: uuid, environmentId: uuid, key: str(), value: str(), description: nullable(str()), usage: usageSchema,
  createdAt: timestamp, updatedAt: timestamp,
});
