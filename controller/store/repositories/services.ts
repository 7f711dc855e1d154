import type { VolumeEntry } from '../../model/volume-mount.js';
import type { Knex } from 'knex';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';
import { toDeployment, type DeploymentRow } from './deployments.js';
import type { Condition } from '../../model/conditions.js';
import type { ServerSelector } from '../../placement/labels.js';
import type { Rollout } from '../../model/rollout.js';
import type { RestartPolicy } from '../../model/restart-policy.js';
import type { Ingress } from '../../model/ingress.js';

export interface HealthCheck {
  test: string[];
  intervalSec?: number;
  timeoutSec?: number;
  retries?: number;
  startPeriodSec?: number;
}

export type UpdateOrder = 'stop-first' | 'start-first';

export interface ServiceRow {
  id: string;
  environmentId: string;
  name: string;
  containerImageId: string | null;
  /** The desired tag; deployments record the tag they actually run. */
  imageTag: string | null;
  type: string | null;
  env: Record<string, string>;
  ports: string[];
  volumes: VolumeEntry[];
  command: string[] | null;
  healthCheck: HealthCheck | null;
  composeTemplate: string | null;
  /** stop-first: the old container stops before the new starts; start-first: the new takes over when healthy. */
  updateOrder: UpdateOrder;
  /** start-first: seconds the old container, out of the network alias, is given before it is stopped. */
  drainSec: number;
  /** Docker's restart policy as `docker run --restart` takes it (controller/model/restart-policy.ts). */
  restartPolicy: RestartPolicy;
  /** Placement by server labels instead of deployments written by hand (reconcilers/service/placement.ts). */
  serverSelector: ServerSelector | null;
  /** How its rollouts are split into waves and analysed (controller/model/rollout.ts); null: the plan's strategy. */
  rollout: Rollout | null;
  /** Where the proxy on its servers serves it from outside (controller/model/ingress.ts); null: nowhere. */
  ingress: Ingress | null;
  generation: number;
  observedGeneration: number | null;
  /** Aggregated from the deployments' conditions (Degraded when a rollout failed). */
  conditions: Condition[];
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  /** The revision the spec asks for (the newest accepted), null before the first rollout. */
  desiredRevision: number | null;
  /** The newest revision that fully succeeded: the last good state heal falls back to. */
  currentRevision: number | null;
  /** The desired revision when its rollout failed (heal never retries it), and why. */
  failedRevision: number | null;
  failedReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Spec fields of a service: a change to any of them bumps `generation`. */
export const SERVICE_SPEC_FIELDS = [
  'name', 'containerImageId', 'imageTag', 'type', 'env', 'ports', 'volumes', 'command', 'healthCheck', 'composeTemplate',
  'updateOrder', 'drainSec', 'restartPolicy', 'serverSelector', 'rollout', 'ingress',
] as const;
export type ServiceSpec = Partial<Pick<ServiceRow, (typeof SERVICE_SPEC_FIELDS)[number]>>;

const JSON_FIELDS = new Set(['env', 'ports', 'volumes', 'command', 'healthCheck', 'serverSelector', 'rollout', 'ingress']);

/** jsonb columns are written as JSON text (knex would otherwise send arrays as PostgreSQL arrays). */
function toColumns(spec: ServiceSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) {
    if (v === undefined) continue;
    out[k] = JSON_FIELDS.has(k) && v !== null ? JSON.stringify(v) : v;
  }
  return out;
}

export interface ServiceListFilter {
  environmentId: string;
  type?: string;
  containerImageId?: string;
  /** Only services whose serverSelector.matchLabels holds every one of these pairs. */
  selecting?: Record<string, string>;
}

/**
 * A service that declares an ingress: an object in the column. A manifest without `ingress` writes
 * JSON null, which SQL's IS NOT NULL counts as a value: its server's proxy reconcile then failed
 * on every pass (found by bench/chaos.ts).
 */
const DECLARES_INGRESS = "jsonb_typeof(s.ingress) = 'object'";

export class ServicesRepository extends BaseRepository<ServiceRow> {
  constructor(db: Knex) {
    super(db, 'services', {
      services_env_name_unique: 'A service with this name already exists in the environment',
      services_container_image_id_foreign: 'The container image does not exist',
    });
  }

  async create(environmentId: string, spec: ServiceSpec, trx?: Knex.Transaction): Promise<ServiceRow> {
    return this.insert({ environmentId, ...toColumns(spec) } as Partial<ServiceRow>, trx);
  }

  /**
   * Writes spec fields and bumps the generation when any of them really changed (the engine and
   * the drift reconciler compare generations). Unchanged values leave the row untouched.
   */
  async updateSpec(current: ServiceRow, spec: ServiceSpec, trx?: Knex.Transaction): Promise<{ row: ServiceRow; changed: string[] }> {
    const changed = SERVICE_SPEC_FIELDS.filter((f) => spec[f] !== undefined && JSON.stringify(spec[f]) !== JSON.stringify(current[f]));
    if (!changed.length) return { row: current, changed };
    const values = toColumns(Object.fromEntries(changed.map((f) => [f, spec[f]])) as ServiceSpec);
    const row = await this.update(current.id, { ...values, generation: this.nextGeneration() } as Partial<ServiceRow>, trx);
    return { row: row!, changed };
  }

  async listFiltered(filter: ServiceListFilter, page: PageQuery, trx?: Knex.Transaction): Promise<Page<ServiceRow>> {
    const where: Partial<ServiceRow> = { environmentId: filter.environmentId };
    if (filter.type !== undefined) where.type = filter.type;
    if (filter.containerImageId !== undefined) where.containerImageId = filter.containerImageId;
    if (!filter.selecting) return this.list(where, page, 'name', trx);
    // services whose selector asks for every pair given (`get services -l role=web`)
    const base = () => this.q(trx).where(where as never).whereRaw(`server_selector->'matchLabels' @> ?::jsonb`, [JSON.stringify(filter.selecting)]);
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as ServiceRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** Every service of an environment, by name (dependency graphs, plans). */
  listByEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<ServiceRow[]> {
    return this.q(trx).where({ environmentId }).orderBy('name') as Promise<ServiceRow[]>;
  }

  /** The environment's services placed by a serverSelector, by name (a resync's placement pass reads these, not all 10,000). */
  listWithSelector(environmentId: string, trx?: Knex.Transaction): Promise<ServiceRow[]> {
    return this.q(trx).where({ environmentId }).whereNotNull('serverSelector').orderBy('name') as Promise<ServiceRow[]>;
  }

  listByIds(ids: string[], trx?: Knex.Transaction): Promise<ServiceRow[]> {
    return this.q(trx).whereIn('id', ids).orderBy('name') as Promise<ServiceRow[]>;
  }

  listByImage(containerImageId: string, trx?: Knex.Transaction): Promise<ServiceRow[]> {
    return this.q(trx).where({ containerImageId }).orderBy('name') as Promise<ServiceRow[]>;
  }

  async countByType(environmentId: string, trx?: Knex.Transaction): Promise<{ type: string | null; count: number }[]> {
    const rows = await this.q(trx).where({ environmentId }).select('type').count({ count: '*' }).groupBy('type').orderBy('type');
    return (rows as unknown as { type: string | null; count: number }[]).map((r) => ({ type: r.type, count: Number(r.count) }));
  }

  async countUsingType(type: string, trx?: Knex.Transaction): Promise<number> {
    const [{ count }] = await this.q(trx).where({ type }).count({ count: '*' });
    return Number(count);
  }

  /**
   * The services' rows locked until the transaction ends (ordered by id, so two requests naming
   * the same services never deadlock): desired-state writes for one service are serialized.
   */
  lockForUpdate(ids: string[], trx: Knex.Transaction): Promise<ServiceRow[]> {
    return this.q(trx).whereIn('id', ids).orderBy('id').forUpdate() as Promise<ServiceRow[]>;
  }

  /**
   * A new desired tag: spec, so the generation moves (only when the tag really changes). The row
   * as written; undefined when nothing changed.
   */
  async writeDesiredTag(id: string, imageTag: string, trx?: Knex.Transaction): Promise<ServiceRow | undefined> {
    const [row] = await this.q(trx).where('id', id).whereRaw('image_tag is distinct from ?', [imageTag])
      .update({ imageTag, generation: this.nextGeneration(), updatedAt: this.db.fn.now() } as never).returning('*');
    return row as ServiceRow | undefined;
  }

  /** Which revision is desired, current (last good) and failed: status, never a generation bump. */
  async recordRevisions(id: string, values: Partial<Pick<ServiceRow, 'desiredRevision' | 'currentRevision' | 'failedRevision' | 'failedReason'>>,
    trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update(values as never);
  }

  /** Observed status: conditions and the generation they describe (never a generation bump). */
  async recordConditions(id: string, conditions: Condition[], observedGeneration?: number, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update({
      conditions: JSON.stringify(conditions), ...(observedGeneration !== undefined && { observedGeneration }),
    } as never);
  }

  /** recordConditions of many services with one statement (a reconcile batch). */
  async recordConditionsMany(rows: Array<{ id: string; conditions: Condition[]; observedGeneration: number }>): Promise<void> {
    if (!rows.length) return;
    await this.db.raw(`update services s set conditions = v.conditions, observed_generation = v.observed_generation
      from json_to_recordset(?::json) as v(id uuid, conditions jsonb, observed_generation integer) where s.id = v.id`,
    [JSON.stringify(rows.map((r) => ({ id: r.id, conditions: r.conditions, observed_generation: r.observedGeneration })))]);
  }

  /** Every service that declares an ingress, with its environment's name: the hosts claimed (controller/model/ingress.ts). */
  async listIngressClaims(trx?: Knex.Transaction): Promise<Array<{ environmentId: string; environmentName: string; serviceId: string; serviceName: string; ingress: Ingress }>> {
    const rows = await (trx ?? this.db)('services as s').join('environments as e', 'e.id', 's.environment_id').whereRaw(DECLARES_INGRESS)
      .select('s.environment_id', 'e.name as environment_name', 's.id as service_id', 's.name as service_name', 's.ingress');
    return rows as never;
  }

  /**
   * The services with an ingress that have a deployment on the server, with those deployments:
   * the route table of that server's proxy (reconcilers/proxy/).
   */
  async listIngressOnServer(serverId: string, trx?: Knex.Transaction): Promise<Array<{ service: ServiceRow; deployments: DeploymentRow[] }>> {
    return (await this.listIngressOnServers([serverId], trx)).get(serverId) ?? [];
  }

  /** listIngressOnServer of many servers with two queries (a batch of the proxy resync), by server; a server with none is absent. */
  async listIngressOnServers(serverIds: string[], trx?: Knex.Transaction): Promise<Map<string, Array<{ service: ServiceRow; deployments: DeploymentRow[] }>>> {
    const out = new Map<string, Array<{ service: ServiceRow; deployments: DeploymentRow[] }>>();
    if (!serverIds.length) return out;
    const deployments = await (trx ?? this.db)('deployments as d').join('services as s', 's.id', 'd.service_id')
      .whereIn('d.server_id', serverIds).whereRaw(DECLARES_INGRESS).select('d.*').orderBy('d.container_name') as DeploymentRow[];
    if (!deployments.length) return out;
    // services in listByIds's order (by name), each with its deployments there in container order
    for (const service of await this.listByIds([...new Set(deployments.map((d) => d.serviceId))], trx)) {
      for (const d of deployments.filter((x) => x.serviceId === service.id)) {
        const found = out.get(d.serverId) ?? [];
        if (found.at(-1)?.service !== service) found.push({ service, deployments: [] });
        found.at(-1)!.deployments.push(d);
        out.set(d.serverId, found);
      }
    }
    return out;
  }

  /** Services whose Degraded condition is True, with their environment's name. */
  async listDegraded(environmentId?: string): Promise<Array<ServiceRow & { environmentName: string }>> {
    const q = this.db('services as s').join('environments as e', 'e.id', 's.environment_id')
      .whereRaw(`s.conditions @> '[{"type":"Degraded","status":"True"}]'::jsonb`).select('s.*', 'e.name as environment_name').orderBy(['e.name', 's.name']);
    if (environmentId) q.where('s.environment_id', environmentId);
    return q as unknown as Promise<Array<ServiceRow & { environmentName: string }>>;
  }
}

/** What the API shows of a service; `deployments` when the caller loaded them. */
export function toService(s: ServiceRow, deployments?: DeploymentRow[], driftPolicy?: string) {
  return {
    id: s.id, environmentId: s.environmentId, name: s.name, containerImageId: s.containerImageId,
    imageTag: s.imageTag, type: s.type, env: s.env, ports: s.ports, volumes: s.volumes, command: s.command,
    healthCheck: s.healthCheck, composeTemplate: s.composeTemplate, updateOrder: s.updateOrder, drainSec: s.drainSec, restartPolicy: s.restartPolicy, serverSelector: s.serverSelector ?? null, rollout: s.rollout ?? null, ingress: s.ingress ?? null, generation: s.generation,
    observedGeneration: s.observedGeneration ?? null, conditions: s.conditions ?? [], status: s.status, source: s.source,
    desiredRevision: s.desiredRevision ?? null, currentRevision: s.currentRevision ?? null,
    failedRevision: s.failedRevision != null ? { revision: s.failedRevision, reason: s.failedReason ?? '' } : null,
    createdAt: s.createdAt, updatedAt: s.updatedAt,
    ...(deployments && { deployments: deployments.map((d) => toDeployment(d, driftPolicy)) }),
  };
}
