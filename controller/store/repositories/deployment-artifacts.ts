import type { Knex } from 'knex';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';

export interface DeploymentArtifactRow {
  id: string;
  deploymentId: string;
  planId: string | null;
  kind: 'compose' | 'env';
  path: string;
  /** Plain content (compose files never hold secrets); null for env files. */
  content: string | null;
  /** Env file content sealed with secretBox. */
  sealedContent: string | null;
  redactedContent: string;
  sha256: string;
  imageTag: string | null;
  createdAt: Date;
}

export class DeploymentArtifactsRepository extends BaseRepository<DeploymentArtifactRow> {
  constructor(db: Knex) {
    super(db, 'deployment_artifacts');
  }

  listOf(deploymentId: string, page: PageQuery): Promise<Page<DeploymentArtifactRow>> {
    return this.list({ deploymentId }, { ...page }, 'createdAt');
  }

  /** The files one deploy wrote: the compose document (plain) and, when written, the sealed environment file. */
  async record(deploymentId: string, planId: string | null, imageTag: string, a: {
    compose: { path: string; content: string; sha256: string };
    env?: { path: string; sealedContent: string; redactedContent: string; sha256: string };
  }): Promise<void> {
    await this.q().insert([
      { deploymentId, planId, kind: 'compose', path: a.compose.path, content: a.compose.content, redactedContent: a.compose.content, sha256: a.compose.sha256, imageTag },
      ...a.env ? [{ deploymentId, planId, kind: 'env', ...a.env, imageTag }] : [],
    ] as never);
  }

  /** The newest artifact of each kind of a deployment. */
  async latest(deploymentId: string, kind: 'compose' | 'env'): Promise<DeploymentArtifactRow | undefined> {
    return (await this.q().where({ deploymentId, kind }).orderBy('createdAt', 'desc').orderBy('id').first()) as DeploymentArtifactRow | undefined;
  }
}

export function toArtifact(a: DeploymentArtifactRow) {
  return {
    id: a.id, deploymentId: a.deploymentId, planId: a.planId, kind: a.kind, path: a.path, sha256: a.sha256,
    imageTag: a.imageTag, createdAt: a.createdAt,
  };
}
