import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { Condition } from '../../model/conditions.js';
import { driftEffect } from '../../model/drift-effect.js';

export type DeploymentStatus = 'pending' | 'running' | 'stopped' | 'missing' | 'failed' | 'unknown';

export interface DeploymentRow {
  id: string;
  serviceId: string;
  environmentId: string;
  serverId: string;
  containerName: string;
  composePath: string | null;
  /** Observed state, written by the engine and reconcilers. */
  status: DeploymentStatus | string;
  imageTag: string | null;
  previousImageTag: string | null;
  containerId: string | null;
  imageDigest: string | null;
  exposedPorts: unknown[];
  lastDeployedAt: Date | null;
  generation: number;
  /** The generation the last observation was computed against (null: never observed). */
  observedGeneration: number | null;
  /** The generation whose rollout last failed: heal does not retry it. */
  failedGeneration: number | null;
  /** Hash of the whole container spec last converged (reconcilers/deployment/desired.ts). */
  specHash: string | null;
  /** The revision of its service the container runs (set when a step or rollback put it there). */
  revision: number | null;
  /** A container started outside Stevedore that this deployment adopted as it runs (docs/git-sources.md). */
  adoptedContainerId?: string | null;
  conditions: Condition[];
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields a user writes; the rest is observed. */
export const DEPLOYMENT_SPEC_FIELDS = ['serverId', 'containerName', 'composePath'] as const;
export type DeploymentSpec = Partial<Pick<DeploymentRow, (typeof DEPLOYMENT_SPEC_FIELDS)[number]>>;

/** Observed fields the engine and reconcilers record (never through the API). */
export type DeploymentObserved = Partial<Pick<DeploymentRow,
  'status' | 'imageTag' | 'previousImageTag' | 'containerId' | 'imageDigest' | 'exposedPorts' | 'lastDeployedAt' | 'conditions'
  | 'observedGeneration' | 'failedGeneration' | 'specHash' | 'revision'>>;

export class DeploymentsRepository extends BaseRepository<DeploymentRow> {
  constructor(db: Knex) {
    super(db, 'deployments', {
      deployments_server_container_unique: 'A deployment with this container name already exists on the server',
      deployments_server_id_foreign: 'The server does not exist',
    });
  }

  create(serviceId: string, environmentId: string, spec: Required<Pick<DeploymentSpec, 'serverId' | 'containerName'>> & DeploymentSpec, trx?: Knex.Transaction) {
    return this.insert({ serviceId, environmentId, ...spec }, trx);
  }

  /** Writes spec fields; bumps the generation when one really changed. */
  async updateSpec(current: DeploymentRow, spec: DeploymentSpec, trx?: Knex.Transaction): Promise<{ row: DeploymentRow; changed: string[] }> {
    const changed = DEPLOYMENT_SPEC_FIELDS.filter((f) => spec[f] !== undefined && spec[f] !== current[f]);
    if (!changed.length) return { row: current, changed };
    const values = Object.fromEntries(changed.map((f) => [f, spec[f]]));
    const row = await this.update(current.id, { ...values, generation: this.nextGeneration() }, trx);
    return { row: row!, changed };
  }

  /** Records observed state; leaves the generation alone (status is not spec). */
  async recordObserved(id: string, observed: DeploymentObserved, trx?: Knex.Transaction): Promise<DeploymentRow | undefined> {
    const values: Record<string, unknown> = { ...observed };
    if (observed.exposedPorts) values.exposedPorts = JSON.stringify(observed.exposedPorts);
    if (observed.conditions) values.conditions = JSON.stringify(observed.conditions);
    return this.update(id, values as Partial<DeploymentRow>, trx);
  }

  /** The conditions and observedGeneration of many deployments (a batch of looks) in one statement. */
  async recordConditionsMany(rows: Array<{ id: string; conditions: Condition[]; observedGeneration: number }>): Promise<void> {
    if (!rows.length) return;
    await this.db.raw(`update deployments d set conditions = v.conditions, observed_generation = v.observed_generation, updated_at = now()
      from json_to_recordset(?::json) as v(id uuid, conditions jsonb, observed_generation integer) where d.id = v.id`,
    [JSON.stringify(rows.map((r) => ({ id: r.id, conditions: r.conditions, observed_generation: r.observedGeneration })))]);
  }

  /** The desired state of the service changed: every placement of it has a new generation to reach. */
  async bumpGenerationOfServices(serviceIds: string[], trx: Knex.Transaction): Promise<void> {
    if (serviceIds.length) await this.q(trx).whereIn('serviceId', serviceIds).update({ generation: this.nextGeneration(), updatedAt: this.db.fn.now() } as never);
  }

  listByService(serviceId: string, trx?: Knex.Transaction): Promise<DeploymentRow[]> {
    return this.q(trx).where({ serviceId }).orderBy([{ column: 'containerName' }, { column: 'id' }]) as Promise<DeploymentRow[]>;
  }

  /** The deployments of one service in plan order: by server name, then container name; each with its server's name. */
  listByServiceInServerOrder(serviceId: string, trx?: Knex.Transaction): Promise<Array<DeploymentRow & { serverName: string }>> {
    return (trx ?? this.db)('deployments as d').join('servers as v', 'v.id', 'd.server_id').where('d.service_id', serviceId)
      .orderBy([{ column: 'v.name' }, { column: 'd.container_name' }]).select('d.*', 'v.name as serverName') as Promise<Array<DeploymentRow & { serverName: string }>>;
  }

  listByServices(serviceIds: string[], trx?: Knex.Transaction): Promise<DeploymentRow[]> {
    if (!serviceIds.length) return Promise.resolve([]);
    return this.q(trx).whereIn('serviceId', serviceIds).orderBy([{ column: 'containerName' }, { column: 'id' }]) as Promise<DeploymentRow[]>;
  }

  listByServer(serverId: string, trx?: Knex.Transaction): Promise<DeploymentRow[]> {
    return this.q(trx).where({ serverId }).orderBy([{ column: 'containerName' }, { column: 'id' }]) as Promise<DeploymentRow[]>;
  }

  listByEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<DeploymentRow[]> {
    return this.q(trx).where({ environmentId }).orderBy([{ column: 'containerName' }, { column: 'id' }]) as Promise<DeploymentRow[]>;
  }

  /** Deployments of other services (or environments) that use this container name on this server. */
  findByContainerName(serverId: string, containerName: string, trx?: Knex.Transaction): Promise<DeploymentRow | undefined> {
    return this.q(trx).where({ serverId, containerName }).first() as Promise<DeploymentRow | undefined>;
  }

  /** How many deployments on a server share one compose file. */
  async countSharingComposePath(serverId: string, composePath: string, trx?: Knex.Transaction): Promise<number> {
    const [{ count }] = await this.q(trx).where({ serverId, composePath }).count({ count: '*' });
    return Number(count);
  }

  /** Records a compose path the generator chose, only if none is set yet; true when it was written. */
  async recordGeneratedComposePath(id: string, composePath: string, trx?: Knex.Transaction): Promise<boolean> {
    const n = await this.q(trx).where({ id }).whereNull('composePath').update({ composePath, updatedAt: this.db.fn.now() } as never);
    return n > 0;
  }

  /** The environment of a server, or undefined when there is no such server. */
  async serverEnvironment(serverId: string, trx?: Knex.Transaction): Promise<string | undefined> {
    const row = await (trx ?? this.db)('servers').where('id', serverId).first('environmentId');
    return (row as { environmentId?: string } | undefined)?.environmentId;
  }

  /** Deployments that were deployed at least once (something is desired on a server), ids only. */
  /** Ids of the deployments on these servers that were deployed (have a tag). */
  async listDeployedIdsOnServers(serverIds: string[], trx?: Knex.Transaction): Promise<string[]> {
    if (!serverIds.length) return [];
    const rows = (await this.q(trx).whereIn('serverId', serverIds).whereNotNull('imageTag').select('id')) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async listDeployedIds(environmentId: string, trx?: Knex.Transaction): Promise<string[]> {
    const rows = (await this.q(trx).where({ environmentId }).whereNotNull('imageTag').select('id')) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  /**
   * Writes an observed status only if the row still holds the one the observation started from
   * (compare-and-set): a plan that wrote meanwhile knows better than an older look.
   */
  async recordStatusIf(id: string, from: string, to: DeploymentStatus, trx?: Knex.Transaction): Promise<boolean> {
    const n = await this.q(trx).where({ id, status: from } as never).update({ status: to, updatedAt: this.db.fn.now() } as never);
    return n > 0;
  }

  /**
   * Runs `fn` with the row locked (FOR UPDATE) in a transaction: two reconciles of one deployment
   * (another replica, a batch check) cannot both record the same transition and both announce it.
   */
  async withLocked<T>(id: string, fn: (row: DeploymentRow, trx: Knex.Transaction) => Promise<T>): Promise<T | undefined> {
    return this.db.transaction(async (trx) => {
      const row = (await this.q(trx).where('id', id).forUpdate().first()) as DeploymentRow | undefined;
      return row ? fn(row, trx) : undefined;
    });
  }
}

/**
 * What the API shows of a deployment; given its environment's driftPolicy, `statusNote` says
 * what that policy does about a missing or stopped container ("not restored: driftPolicy warn").
 */
export function toDeployment(d: DeploymentRow, driftPolicy?: string) {
  return {
    id: d.id, serviceId: d.serviceId, environmentId: d.environmentId, serverId: d.serverId,
    containerName: d.containerName, composePath: d.composePath, status: d.status,
    ...(driftPolicy !== undefined && { statusNote: driftEffect(driftPolicy, d.status) }), imageTag: d.imageTag,
    previousImageTag: d.previousImageTag, imageDigest: d.imageDigest, exposedPorts: d.exposedPorts,
    lastDeployedAt: d.lastDeployedAt, generation: d.generation, observedGeneration: d.observedGeneration ?? null,
    failedGeneration: d.failedGeneration ?? null, revision: d.revision ?? null, adoptedContainerId: d.adoptedContainerId ?? null,
    conditions: d.conditions, source: d.source, createdAt: d.createdAt, updatedAt: d.updatedAt,
  };
}
