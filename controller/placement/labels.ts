// Server labels and the selectors that pick servers by them, with Kubernetes' rules for label keys
// and values: a key is an optional DNS-subdomain prefix and "/" then a name of at most 63
// characters (alphanumerics, '-', '_', '.', starting and ending alphanumeric); a value is empty or
// such a name. Pure: the kind descriptors, the API and the placement reconciler share it.
import type { Schema } from '../kinds/schema.js';

const NAME = '[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?';
const NAME_RE = new RegExp(`^${NAME}$`);
const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const PREFIX_RE = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);

export type Labels = Record<string, string>;
export interface ServerSelector { matchLabels: Labels }

export const MAX_LABELS = 64;

/** Labels as the API and manifests take them; the key and value rules the schema cannot say are labelProblem's. */
export const labelsSchema: Schema = {
  type: 'object', maxProperties: MAX_LABELS, additionalProperties: { type: 'string', maxLength: 63 },
  description: 'Kubernetes-style labels: key [prefix/]name (name ≤ 63 characters, prefix a DNS subdomain ≤ 253), value ≤ 63 characters',
};

export const serverSelectorSchema: Schema = {
  type: 'object', additionalProperties: false, required: ['matchLabels'],
  properties: { matchLabels: { ...labelsSchema, minProperties: 1, description: 'The servers whose labels hold every one of these pairs' } },
  description: 'Place the service on every server whose labels match (instead of listing deployments)',
};

/** Why a label key is not valid, or null. */
export function keyProblem(key: string): string | null {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && (!prefix.length || prefix.length > 253 || !PREFIX_RE.test(prefix))) {
    return `label key "${key}": the prefix must be a DNS subdomain (lower-case alphanumerics, '-' and '.', at most 253 characters)`;
  }
  if (!name.length || name.length > 63 || !NAME_RE.test(name)) {
    return `label key "${key}": the name must be 1-63 characters, alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return null;
}

/** Why a label value is not valid, or null. */
export function valueProblem(key: string, value: unknown): string | null {
  if (typeof value !== 'string') return `label "${key}": the value must be a string`;
  if (value === '' || (value.length <= 63 && NAME_RE.test(value))) return null;
  return `label "${key}": the value must be empty or 1-63 characters, alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
}

/** The first problem of a label map, or null. */
export function labelsProblem(labels: Record<string, unknown> | null | undefined): string | null {
  for (const [k, v] of Object.entries(labels ?? {})) {
    const p = keyProblem(k) ?? valueProblem(k, v);
    if (p) return p;
  }
  return null;
}

/** Whether a server with `labels` is chosen by `selector` (every pair present; an empty selector chooses none). */
export function matchesSelector(selector: ServerSelector | null | undefined, labels: Labels | null | undefined): boolean {
  const want = Object.entries(selector?.matchLabels ?? {});
  if (!want.length) return false;
  return want.every(([k, v]) => (labels ?? {})[k] === v);
}

/** `role=web,zone=a` (the CLI's -l and the lists' `labelSelector`) as pairs; throws a message on bad input. */
export function parseLabelSelector(text: string): Labels {
  const out: Labels = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`"${part}" is not key=value`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).replace(/^=/, '').trim();
    const p = keyProblem(key) ?? valueProblem(key, value);
    if (p) throw new Error(p);
    out[key] = value;
  }
  if (!Object.keys(out).length) throw new Error('the selector names no label');
  return out;
}

/** `{role: web}` as `role=web` (tables, plan names). */
export const formatLabels = (labels: Labels | null | undefined): string => Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
