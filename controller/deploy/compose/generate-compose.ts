// Pure compose generator: service template + deployment + image -> compose YAML. The container's
// environment goes to a separate env file (mode 0600) referenced by env_file, so no env value, and
// therefore no secret, is ever written into the compose document.
import { stringify } from 'yaml';
import { assertDefinesContainer, parseCompose, type ComposeDocument } from './validate-compose.js';

export interface ComposeService {
  id: string;
  environmentId: string;
  name: string;
  ports: string[];
  volumes: string[];
  command: string[] | null;
  healthCheck: { test: string[]; intervalSec?: number; timeoutSec?: number; retries?: number; startPeriodSec?: number } | null;
  composeTemplate: string | null;
}

export interface ComposeInput {
  service: ComposeService;
  deployment: { id: string; containerName: string };
  /** Full reference with tag: registry/name:tag. */
  image: string;
  imageTag: string;
  /** env file name relative to the compose file's directory. */
  envFile: string;
  /** Hash of the env file content, recorded as a label so drift can see an env change. */
  envHash: string;
}

/** Labels that mark a container as Stevedore's; user labels with this prefix are refused. */
export function ownershipLabels(i: Pick<ComposeInput, 'service' | 'deployment' | 'imageTag' | 'envHash'>): Record<string, string> {
  return {
    'stevedore.managed': 'true',
    'stevedore.environment-id': i.service.environmentId,
    'stevedore.service-id': i.service.id,
    'stevedore.deployment-id': i.deployment.id,
    'stevedore.image-tag': i.imageTag,
    'stevedore.env-hash': i.envHash,
  };
}

const seconds = (n: number | undefined, dflt: number) => `${n ?? dflt}s`;

function healthcheckOf(h: ComposeService['healthCheck']): Record<string, unknown> | undefined {
  if (!h) return undefined;
  return {
    test: h.test, interval: seconds(h.intervalSec, 10), timeout: seconds(h.timeoutSec, 5),
    retries: h.retries ?? 3, start_period: seconds(h.startPeriodSec, 0),
  };
}

function generatedService(i: ComposeInput): Record<string, unknown> {
  const s = i.service;
  const out: Record<string, unknown> = {
    image: i.image,
    container_name: i.deployment.containerName,
    restart: 'unless-stopped',
    env_file: [i.envFile],
    labels: ownershipLabels(i),
  };
  if (s.command?.length) out.command = s.command;
  if (s.ports.length) out.ports = s.ports;
  if (s.volumes.length) out.volumes = s.volumes;
  const hc = healthcheckOf(s.healthCheck);
  if (hc) out.healthcheck = hc;
  return out;
}

// Template tokens are plain text replacements done before parsing; values are validated names.
function fillTemplate(template: string, i: ComposeInput): string {
  const tokens: Record<string, string> = { containerName: i.deployment.containerName, image: i.image, imageTag: i.imageTag, envFile: i.envFile };
  return template.replace(/\{\{\s*(containerName|image|imageTag|envFile)\s*\}\}/g, (_m, k: string) => tokens[k]);
}

/** The compose document of one deployment, validated (rule 5) before it is returned. */
export function generateCompose(i: ComposeInput): string {
  let doc: ComposeDocument;
  if (i.service.composeTemplate) {
    doc = parseCompose(fillTemplate(i.service.composeTemplate, i), `the compose template of service ${i.service.name}`);
    assertDefinesContainer(doc, i.deployment.containerName, `the compose template of service ${i.service.name}`);
    const svc = doc.services[i.deployment.containerName];
    // the template decides everything but ownership, image and where the environment comes from
    svc.image = i.image;
    svc.container_name ??= i.deployment.containerName;
    const envFiles = Array.isArray(svc.env_file) ? svc.env_file : svc.env_file ? [svc.env_file] : [];
    svc.env_file = [...envFiles.filter((f) => f !== i.envFile), i.envFile];
    delete svc.environment;
    const labels = svc.labels && typeof svc.labels === 'object' && !Array.isArray(svc.labels) ? svc.labels as Record<string, string> : {};
    svc.labels = { ...Object.fromEntries(Object.entries(labels).filter(([k]) => !k.startsWith('stevedore.'))), ...ownershipLabels(i) };
  } else {
    doc = { services: { [i.deployment.containerName]: generatedService(i) } };
  }
  assertDefinesContainer(doc, i.deployment.containerName, 'the generated compose document');
  return stringify(doc, { lineWidth: 0 });
}
