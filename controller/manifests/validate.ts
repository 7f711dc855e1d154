import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { documentSchema } from '../kinds/document-schema.js';
import { KIND_NAMES, KINDS, kindOf } from '../kinds/index.js';
import { RESERVED_LABEL_PREFIX } from '../kinds/manifest-fields.js';
import type { ParsedDocument } from './parse.js';
import type { ManifestError } from './types.js';

let validators: Record<string, ValidateFunction> | null = null;

/**
 * Compiles every kind's schema (~0.3 s at once, which cannot be cut in slices): the service does
 * it before it listens (controller/serve.ts), so no request, nor /health beside a manifest
 * apply, waits for it.
 */
export function compileValidators(): Record<string, ValidateFunction> {
  if (!validators) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    validators = Object.fromEntries(KINDS.map((k) => [k.kind, ajv.compile(documentSchema(k))]));
  }
  return validators;
}

const validatorOf = (kind: string): ValidateFunction => compileValidators()[kind];

const segmentsOf = (pointer: string) => (pointer ? pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : []);

/** Validates one parsed document against its kind's schema and the rules a schema cannot say. */
export function validateDocument(doc: ParsedDocument): ManifestError[] {
  const at = (path: string[], message: string, atKey = false): ManifestError => ({
    file: doc.file, ...doc.positionOf(path, atKey), path: path.join('/'), message,
  });
  const v = doc.value as any;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return [at([], 'a manifest must be a mapping with apiVersion, kind, metadata and spec')];
  if (!KIND_NAMES.includes(v.kind)) {
    return [at(['kind'], v.kind === undefined ? 'kind is required' : `unknown kind '${v.kind}' (known: ${KIND_NAMES.join(', ')})`)];
  }
  const validate = validatorOf(v.kind);
  const errors = validate(v) ? [] : collapse(validate.errors ?? []).map((e) => toError(e, at, v.kind));
  // the kind's own rules read a spec of the right shape only
  if (!errors.length) for (const p of kindOf(v.kind).manifest.problems?.(v.spec) ?? []) errors.push(at(['spec', ...p.path], p.message));
  for (const key of Object.keys(v.metadata?.labels ?? {})) {
    if (key.startsWith(RESERVED_LABEL_PREFIX)) {
      errors.push(at(['metadata', 'labels', key], `the label prefix '${RESERVED_LABEL_PREFIX}' is reserved for Stevedore`, true));
    }
  }
  return errors;
}

/** ajv reports one error per failed keyword; keep one per path and keyword family. */
function collapse(errors: ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    // propertyNames failures come twice: once for the name's own rule, once for propertyNames.
    if (e.keyword === 'if' || (e.params as { propertyName?: string }).propertyName !== undefined && e.keyword !== 'propertyNames') return false;
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const secretsOf = (kind: string) => kindOf(kind).secrets ?? [];

type At = (path: string[], message: string, atKey?: boolean) => ManifestError;

function toError(e: ErrorObject, at: At, kind: string): ManifestError {
  const path = segmentsOf(e.instancePath);
  switch (e.keyword) {
    case 'additionalProperties': {
      const field = String(e.params.additionalProperty);
      // A secret whose valueFrom sits right under spec (a Secret's), given as a plain value.
      if (path.join('/') === 'spec' && secretsOf(kind).some((f) => f.valueFrom?.length === 1 && f.field === field)) {
        return at([...path, field], 'plain secret values are not allowed in manifests: use valueFrom: {secretRef: NAME} (a Secret of the environment), a SOPS file, or in the watched folder {env: NAME} or {file: PATH}', true);
      }
      return at([...path, field], `unknown field '${field}'`, true);
    }
    case 'type':
      if (path.length === 2 && path[0] === 'spec' && e.params.type === 'object' && secretsOf(kind).some((f) => !f.valueFrom && f.field === path[1])) {
        return at(path, `plain secret values are not allowed in manifests: use ${path[1]}: {valueFrom: {secretRef: NAME}} (a Secret of the environment), a SOPS file, or in the watched folder {valueFrom: {env: NAME}} or {valueFrom: {file: PATH}}`);
      }
      return at(path, e.message ?? 'is invalid');
    case 'required':
      return { ...at(path, ''), path: [...path, String(e.params.missingProperty)].join('/'), message: 'is required' };
    case 'propertyNames':
      return at([...path, String(e.params.propertyName)], 'is not an allowed name', true);
    case 'const':
      return at(path, `must be ${JSON.stringify(e.params.allowedValue)}`);
    case 'enum':
      return at(path, `must be one of ${(e.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`);
    case 'minProperties':
    case 'maxProperties':
      if (path.at(-1) === 'valueFrom') return at(path, 'must name exactly one of secretRef, env or file');
      return at(path, e.message ?? 'is invalid');
    default:
      return at(path, e.message ?? 'is invalid');
  }
}
