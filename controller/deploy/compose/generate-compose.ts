// Compose mode's files, rendered from the desired container (reconcilers/deployment/desired.ts):
// the compose document, and a second compose file (0600) holding only `environment:`, passed with
// another --file. No env value, so no secret, is ever written into the first document, and no
// value goes through an env-file parser (docker-compose v1 strips quotes and ` #...` there); in a
// compose file a value is a YAML string taken literally, except `$`, which compose interpolates
// and which is therefore written as `$$`.
import { environmentOfVolumeName } from '../../model/volume-mount.js';
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { Scalar, stringify } from 'yaml';
import { REDACTED } from '../../crypto/redact.js';
import { portSyntax, type DesiredContainer } from '../../model/desired-container.js';
import { envComposePathFor } from './compose-path-rules.js';
import { DEFAULT_RESTART_POLICY } from '../../model/restart-policy.js';
import { assertDefinesContainer, parseCompose, type ComposeDocument } from './validate-compose.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface ComposeFiles {
  compose: { path: string; content: string; sha256: string };
  /** The environment file: content holds secrets (seal it), redacted is for people. */
  env: { path: string; content: string; redacted: string; sha256: string };
}

const seconds = (n: number) => `${n}s`;

/** "no" quoted: docker-compose v1 reads YAML 1.1, where a bare no is false (and refused). */
function composeRestart(policy: string): string | Scalar {
  if (policy !== 'no') return policy;
  const quoted = new Scalar(policy);
  quoted.type = Scalar.QUOTE_DOUBLE;
  return quoted;
}

function generatedService(d: DesiredContainer): Record<string, unknown> {
  const out: Record<string, unknown> = {
    image: d.image,
    container_name: d.containerName,
    restart: composeRestart(d.restart ?? DEFAULT_RESTART_POLICY),
    labels: d.labels,
  };
  if (d.command) out.command = d.command;
  if (d.ports?.length) out.ports = d.ports.map(portSyntax);
  const volumes = [...d.volumes ?? [], ...fileMounts(d)];
  if (volumes.length) out.volumes = volumes;
  if (d.healthcheck) {
    const h = d.healthcheck;
    out.healthcheck = { test: h.test, interval: seconds(h.intervalSec), timeout: seconds(h.timeoutSec), retries: h.retries, start_period: seconds(h.startPeriodSec) };
  }
  return out;
}

/** Config files, read-only at their target path. */
export const fileMounts = (d: DesiredContainer) => (d.mountFiles ? d.files.map((f) => `${f.hostPath}:${f.targetPath}:ro`) : []);

// Template tokens are plain text replacements done before parsing; values are validated names.
export function fillComposeTemplate(template: string, tokens: { containerName: string; image: string; imageTag: string }): string {
  return template.replace(/\{\{\s*(containerName|image|imageTag)\s*\}\}/g, (_m, k: string) => tokens[k as keyof typeof tokens]);
}
const fillTemplate = (template: string, d: DesiredContainer) => fillComposeTemplate(template, { containerName: d.containerName, image: d.image, imageTag: d.imageTag });

function fromTemplate(template: string, d: DesiredContainer): ComposeDocument {
  const where = `the compose template of service ${d.serviceName}`;
  const doc = parseCompose(fillTemplate(template, d), where);
  assertDefinesContainer(doc, d.containerName, where);
  const svc = doc.services[d.containerName];
  // the template decides everything but ownership, image, environment and config-file mounts
  svc.image = d.image;
  svc.container_name ??= d.containerName;
  delete svc.environment;
  const labels = svc.labels && typeof svc.labels === 'object' && !Array.isArray(svc.labels) ? svc.labels as Record<string, string> : {};
  svc.labels = { ...Object.fromEntries(Object.entries(labels).filter(([k]) => !k.startsWith('stevedore.'))), ...d.labels };
  const volumes = Array.isArray(svc.volumes) ? svc.volumes as unknown[] : [];
  const mounts = fileMounts(d);
  if (mounts.length) svc.volumes = [...volumes.filter((v) => !mounts.includes(v as string)), ...mounts];
  return doc;
}

/** `$` is compose's interpolation character: `$$` is a literal one. */
const escapeDollars = (v: string) => v.replace(/\$/g, '$$$$');

function envDocument(d: DesiredContainer, redact: boolean): string {
  const environment = Object.fromEntries(Object.entries(d.env ?? {}).map(([k, v]) =>
    [k, redact && d.secretKeys.includes(k) ? REDACTED : escapeDollars(v)]));
  return stringify({ services: { [d.containerName]: { environment } } }, { lineWidth: 0 });
}

/** Both files of one deployment, the document validated (rule 5) before it is returned. */
export function composeFilesOf(d: DesiredContainer, composePath: string, template: string | null): ComposeFiles {
  const doc: ComposeDocument = template ? fromTemplate(template, d) : { services: { [d.containerName]: generatedService(d) } };
  // managed volumes exist before the container (controller/volumes/ensure-volume.ts): compose mounts them as they are named
  const managed = template ? [] : (d.volumes ?? []).map((v) => v.split(':')[0]).filter((n) => environmentOfVolumeName(n) !== null);
  if (managed.length) doc.volumes = Object.fromEntries(managed.map((n) => [n, { external: true }]));
  assertDefinesContainer(doc, d.containerName, 'the generated compose document');
  const compose = stringify(doc, { lineWidth: 0 });
  const env = envDocument(d, false);
  return {
    compose: { path: composePath, content: compose, sha256: sha256(compose) },
    env: { path: envComposePathFor(composePath), content: env, redacted: envDocument(d, true), sha256: sha256(env) },
  };
}

export const projectNameOf = (composePath: string) => posix.basename(posix.dirname(composePath));
