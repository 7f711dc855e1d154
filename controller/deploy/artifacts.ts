// The artifacts of one deployment at one tag: the compose document and the env file, with
// their hashes. Pure apart from reading the env sources; deploys, previews and drift share it.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { ServiceRow } from '../store/repositories/services.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import { generateCompose } from './compose/generate-compose.js';
import { envFileContent, renderEnv, type EnvSources, type RenderedEnv } from './compose/render-env.js';
import { directEnvFilePath, envFilePathFor, managedComposePath } from './compose/compose-path-rules.js';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface Artifacts {
  rendered: RenderedEnv;
  env: { path: string; content: string; redacted: string; sha256: string };
  compose: { path: string; content: string; sha256: string };
}

export function buildArtifacts(service: ServiceRow, deployment: DeploymentRow, image: string, imageTag: string,
  sources: EnvSources, composePath: string | null = deployment.composePath): Artifacts {
  const rendered = renderEnv(service.env ?? {}, sources);
  const envContent = envFileContent(rendered);
  const path = composePath ?? managedComposePath(deployment.containerName);
  const envPath = composePath ? envFilePathFor(path) : directEnvFilePath(deployment.containerName);
  const envHash = sha256(envContent);
  const compose = generateCompose({
    service: { ...service, ports: service.ports ?? [], volumes: service.volumes ?? [] },
    deployment, image, imageTag, envFile: `./${posix.basename(envPath)}`, envHash,
  });
  return {
    rendered,
    env: { path: envPath, content: envContent, redacted: envFileContent(rendered, true), sha256: envHash },
    compose: { path, content: compose, sha256: sha256(compose) },
  };
}
