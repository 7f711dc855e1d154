import type { Services } from '../../controller/services.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import { scanContent, substitute, type Finding } from '../../controller/config-files/scanner.js';
import type { ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import type { EnvironmentRow } from '../../controller/store/repositories/environments.js';
import { route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, object, str, uuid } from '../http/schema.js';
import { description, keySchema } from './config-schemas.js';
import { environmentOf } from './loaders.js';

const findingRead = object({
  id: str(), line: int(1), column: int(1), name: str(), suggestedKey: str(), keyExists: bool, length: int(0),
  entropy: { type: 'number' }, masked: str(),
});

/**
 * The config scanner as environment operations: preview finds likely secrets in config file
 * content (length >= scanMinLength, Shannon entropy ×10 >= scanEntropyThreshold) and shows the
 * files with placeholders in their place; create turns chosen findings into secrets (or vars)
 * and rewrites the files, one revision each. Found values are shown masked, never in full.
 */
export default function secretSubstitutionRoutes(s: Services) {
  const cs = s.configStore;

  async function scan(env: EnvironmentRow, configFileIds?: string[]) {
    const opts = await s.settings.get<{ scanMinLength: number; scanEntropyThreshold: number }>(env.id, 'configuration');
    const files = await cs.files.templatesOf(env.id, configFileIds);
    if (configFileIds && files.length !== new Set(configFileIds).size) {
      throw validationError('configFileIds names a file that is not a template of this environment', 'configFileIds');
    }
    const settings = { minLength: opts.scanMinLength, entropyThreshold: opts.scanEntropyThreshold };
    return { settings, files: files.map((f) => ({ file: f, findings: scanContent(f.content ?? '', f.id, settings) })) };
  }

  async function existingKeys(environmentId: string) {
    const [secrets, vars] = await Promise.all([
      cs.secrets.keysOf(environmentId), cs.vars.keysOf(environmentId),
    ]);
    return new Set<string>([...secrets, ...vars]);
  }

  return [
    route<{ configFileIds?: string[] }, unknown, EnvironmentRow>({
      method: 'POST', path: '/api/environments/{envId}/secret-substitutions/preview', operationId: 'previewSecretSubstitutions',
      tag: 'config-scanner', access: 'operator', summary: 'Find likely secrets in config files and show the substitution',
      load: environmentOf(s), body: object({ configFileIds: arrayOf(uuid, { maxItems: 200 }) }),
      response: object({
        settings: object({ minLength: int(), entropyThreshold: int() }),
        files: arrayOf(object({ configFileId: uuid, name: str(), findings: arrayOf(findingRead), substitutedContent: str() })),
      }),
      async handler(ctx, { resource, body }) {
        const { settings, files } = await scan(resource, body.configFileIds);
        const taken = await existingKeys(resource.id);
        const out = files.map(({ file, findings }) => {
          let content = file.content ?? '';
          for (const f of findings) content = substitute(content, f.value, f.suggestedKey);
          return {
            configFileId: file.id, name: file.name, substitutedContent: content,
            findings: findings.map(({ value: _v, start: _s, end: _e, ...rest }) => ({ ...rest, keyExists: taken.has(rest.suggestedKey) })),
          };
        });
        ctx.state.audit = { details: { files: out.length, findings: out.reduce((n, f) => n + f.findings.length, 0) } };
        return { settings, files: out };
      },
    }),

    route<{ substitutions: Array<{ configFileId: string; findingId: string; key: string; kind: 'secret' | 'var'; description?: string | null }> }, unknown, EnvironmentRow>({
      method: 'POST', path: '/api/environments/{envId}/secret-substitutions', operationId: 'createSecretSubstitutions',
      tag: 'config-scanner', access: 'operator', status: 201, errors: [409],
      summary: 'Turn findings into secrets (or vars) and replace their values by ${KEY} in the files',
      load: environmentOf(s),
      body: object({
        substitutions: arrayOf(object({
          configFileId: uuid, findingId: str({ minLength: 1, maxLength: 64 }), key: keySchema,
          kind: { ...enumOf('secret', 'var'), default: 'secret' }, description,
        }, ['configFileId', 'findingId', 'key']), { minItems: 1, maxItems: 200 }),
      }, ['substitutions']),
      response: object({
        secrets: arrayOf(object({ id: uuid, key: str() })), vars: arrayOf(object({ id: uuid, key: str() })),
        configFiles: arrayOf(object({ id: uuid, name: str(), revision: int() })),
      }),
      async handler(ctx, { resource, body }) {
        const { files } = await scan(resource, [...new Set(body.substitutions.map((x) => x.configFileId))]);
        const taken = await existingKeys(resource.id);
        const byKey = new Map<string, { value: string; kind: 'secret' | 'var'; description: string | null }>();
        const perFile = new Map<string, Array<{ finding: Finding; key: string }>>();
        body.substitutions.forEach((sub, i) => {
          const entry = files.find((f) => f.file.id === sub.configFileId)!;
          const finding = entry.findings.find((f) => f.id === sub.findingId);
          if (!finding) throw validationError('No such finding in this file (has the content changed?)', `substitutions.${i}.findingId`);
          if (taken.has(sub.key)) throw conflict(`${sub.key} already exists as a secret or var`, 'Choose another key', `substitutions.${i}.key`);
          const prior = byKey.get(sub.key);
          if (prior && (prior.value !== finding.value || prior.kind !== sub.kind)) {
            throw validationError(`${sub.key} is given to two different values`, `substitutions.${i}.key`);
          }
          byKey.set(sub.key, { value: finding.value, kind: sub.kind, description: sub.description ?? prior?.description ?? null });
          perFile.set(sub.configFileId, [...(perFile.get(sub.configFileId) ?? []), { finding, key: sub.key }]);
        });
        const actorName = ctx.state.actor?.name ?? null;
        const result = await s.transaction(async (trx) => {
          const secrets: Array<{ id: string; key: string }> = [];
          const vars: Array<{ id: string; key: string }> = [];
          for (const [key, v] of byKey) {
            if (v.kind === 'secret') {
              const row = await cs.secrets.insert({ environmentId: resource.id, key, valueSealed: s.secretBox.seal(v.value), description: v.description }, trx);
              secrets.push({ id: row.id, key });
            } else {
              const row = await cs.vars.insert({ environmentId: resource.id, key, value: v.value, description: v.description }, trx);
              vars.push({ id: row.id, key });
            }
          }
          const configFiles: Array<{ id: string; name: string; revision: number }> = [];
          for (const [fileId, subs] of perFile) {
            const file = files.find((f) => f.file.id === fileId)!.file;
            let content = file.content ?? '';
            const replace = (text: string) => subs.reduce((t, x) => substitute(t, x.finding.value, x.key), text);
            content = replace(content);
            const row = await cs.files.update(file.id, { content, revision: file.revision + 1, generation: file.generation + 1 }, trx);
            // the history would otherwise keep the plaintext readable by viewers (and restorable)
            await cs.files.rewriteRevisions(file.id, replace, trx);
            await cs.files.addRevision(row!, actorName, 'substitution', trx);
            configFiles.push({ id: row!.id, name: row!.name, revision: row!.revision });
          }
          return { secrets, vars, configFiles };
        });
        ctx.state.audit = { details: { secrets: result.secrets.map((x) => x.key), vars: result.vars.map((x) => x.key), files: result.configFiles.length } };
        return result;
      },
    }),
  ];
}
