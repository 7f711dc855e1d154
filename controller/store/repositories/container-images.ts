import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';
import type { VersionPolicy } from '../../images/version-policy.js';

export interface ContainerImageRow {
  id: string;
  environmentId: string;
  registryConnectionId: string | null;
  /** Without tag: registry.local:5000/acme/api. */
  imageName: string;
  autoUpdate: boolean;
  currentTag: string | null;
  /** Version policy (null: any newer version, no prereleases). */
  policy: VersionPolicy | null;
  /** The newest tag the last check found under the policy (null: none newer). */
  latestTag: string | null;
  lastCheckedAt: Date | null;
  /** The version whose auto-update failed and rolled back: not tried again until a newer one appears. */
  failedTag: string | null;
  failedDigest: string | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ImageDigestRow {
  id: string;
  containerImageId: string;
  tag: string;
  digest: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

export const IMAGE_SPEC_FIELDS = ['imageName', 'registryConnectionId', 'autoUpdate', 'policy'] as const;
export type ContainerImageSpec = Partial<Pick<ContainerImageRow, (typeof IMAGE_SPEC_FIELDS)[number]>>;

export class ContainerImagesRepository extends BaseRepository<ContainerImageRow> {
  constructor(db: Knex) {
    super(db, 'container_images', {
      container_images_env_name_unique: 'An image with this name already exists in the environment',
      container_images_registry_connection_id_foreign: 'The registry connection does not exist',
    });
  }

  /** The images these services link (one query for a request's services). */
  async ofServices(serviceIds: string[], trx?: Knex.Transaction): Promise<ContainerImageRow[]> {
    const valid = [...new Set(serviceIds.filter(isUuid))];
    if (!valid.length) return [];
    return (await this.q(trx).whereIn('id', (trx ?? this.db)('services').whereIn('id', valid).whereNotNull('containerImageId').select('containerImageId'))) as ContainerImageRow[];
  }

  async updateSpec(current: ContainerImageRow, spec: ContainerImageSpec, trx?: Knex.Transaction) {
    const changed = IMAGE_SPEC_FIELDS.filter((f) => spec[f] !== undefined && JSON.stringify(spec[f]) !== JSON.stringify(current[f]));
    if (!changed.length) return { row: current, changed };
    const values = Object.fromEntries(changed.map((f) => [f, f === 'policy' ? JSON.stringify(spec[f]) : spec[f]]));
    const row = await this.update(current.id, { ...values, generation: this.nextGeneration() }, trx);
    return { row: row!, changed };
  }

  findByName(environmentId: string, imageName: string, trx?: Knex.Transaction) {
    return this.findOne({ environmentId, imageName }, trx);
  }

  /** The environment of a registry connection, or undefined when there is none. */
  async registryEnvironment(registryConnectionId: string, trx?: Knex.Transaction): Promise<string | undefined> {
    const row = await (trx ?? this.db)('registry_connections').where('id', registryConnectionId).first('environmentId');
    return (row as { environmentId?: string } | undefined)?.environmentId;
  }

  /** Records a digest seen for a tag (idempotent); moves currentTag when asked. */
  async recordDigest(containerImageId: string, tag: string, digest: string, trx?: Knex.Transaction): Promise<ImageDigestRow> {
    const conn = trx ?? this.db;
    const [row] = await conn('image_digests')
      .insert({ containerImageId, tag, digest })
      .onConflict(['container_image_id', 'tag', 'digest'])
      .merge({ lastSeenAt: conn.fn.now() })
      .returning('*');
    return row as ImageDigestRow;
  }

  /**
   * Records a digest seen for a tag and answers the digest last seen for it before (undefined: the
   * tag was never checked), in one round trip: an update check of many images pays per statement.
   */
  async observeDigest(containerImageId: string, tag: string, digest: string, trx?: Knex.Transaction): Promise<string | undefined> {
    const { rows } = await (trx ?? this.db).raw(`
      with previous as (select digest from image_digests where container_image_id = ? and tag = ? order by last_seen_at desc limit 1),
           seen as (insert into image_digests (container_image_id, tag, digest) values (?, ?, ?)
                    on conflict (container_image_id, tag, digest) do update set last_seen_at = now() returning id)
      select (select digest from previous) as previous, (select count(*) from seen) as seen`, [containerImageId, tag, containerImageId, tag, digest]);
    return (rows[0] as { previous: string | null }).previous ?? undefined;
  }

  async setCurrentTag(id: string, currentTag: string, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update({ currentTag, updatedAt: this.db.fn.now() } as never);
  }

  /** The digest last seen for a tag, or undefined when the tag was never checked. */
  async lastDigestOf(containerImageId: string, tag: string, trx?: Knex.Transaction): Promise<ImageDigestRow | undefined> {
    return (trx ?? this.db)('image_digests').where({ containerImageId, tag }).orderBy('lastSeenAt', 'desc').first() as Promise<ImageDigestRow | undefined>;
  }

  async findDigest(containerImageId: string, id: string, trx?: Knex.Transaction): Promise<ImageDigestRow | undefined> {
    return (trx ?? this.db)('image_digests').where({ containerImageId, id }).first() as Promise<ImageDigestRow | undefined>;
  }

  /** What the image's tags pointed at over time, newest first: each tag and digest by when it first appeared. */
  async history(containerImageId: string, page: PageQuery, trx?: Knex.Transaction): Promise<Page<ImageDigestRow>> {
    const conn = trx ?? this.db;
    const base = () => conn('image_digests').where({ containerImageId });
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'firstSeenAt', order: 'desc' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as ImageDigestRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** The outcome of an update check: the newest tag found and the image's status (conditions). */
  async recordCheck(id: string, latestTag: string | null, status: Record<string, unknown>, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update({ latestTag, lastCheckedAt: this.db.fn.now(), status: JSON.stringify(status) } as never);
  }

  /** Remembers (or, with nulls, forgets) the version whose auto-update failed. */
  async rememberFailed(id: string, tag: string | null, digest: string | null, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update({ failedTag: tag, failedDigest: digest } as never);
  }

  /** Images whose registry's refreshIntervalMinutes has passed since their last check (or never checked). */
  async listDue(trx?: Knex.Transaction): Promise<ContainerImageRow[]> {
    return this.q(trx).join('registry_connections as r', 'r.id', 'container_images.registryConnectionId')
      .where((q) => q.whereNull('container_images.lastCheckedAt')
        .orWhereRaw("container_images.last_checked_at < now() - make_interval(mins => r.refresh_interval_minutes)"))
      .select('container_images.*') as Promise<ContainerImageRow[]>;
  }

  /** Images whose status waits for the outcome of this auto-update plan. */
  async withPendingPlan(planId: string, trx?: Knex.Transaction): Promise<string[]> {
    const rows = await this.q(trx).whereRaw("status->'autoUpdate'->>'planId' = ?", [planId]).select('id') as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  listByRegistry(registryConnectionId: string, trx?: Knex.Transaction): Promise<ContainerImageRow[]> {
    return this.q(trx).where({ registryConnectionId }).orderBy('imageName') as Promise<ContainerImageRow[]>;
  }

  /**
   * Services of the image's environment that run another image row of the same repository (the
   * name without its registry host), or one the registry's autoLinkPattern matches.
   */
  async relinkCandidates(image: ContainerImageRow, repository: string, autoLinkPattern: string | null, trx?: Knex.Transaction) {
    const rows = await (trx ?? this.db)('services as s').join('container_images as i', 'i.id', 's.containerImageId')
      .where('s.environmentId', image.environmentId).whereNot('i.id', image.id)
      .orderBy('s.name').select('s.id', 's.name', 's.imageTag', 'i.id as containerImageId', 'i.imageName') as Array<{ id: string; name: string; imageTag: string | null; containerImageId: string; imageName: string }>;
    const pattern = autoLinkPattern ? new RegExp(autoLinkPattern) : null;
    return rows.filter((r) => r.imageName === repository || r.imageName.endsWith(`/${repository}`) || !!pattern?.test(r.imageName));
  }

  async listDigests(containerImageId: string, page: PageQuery, trx?: Knex.Transaction): Promise<Page<ImageDigestRow>> {
    const conn = trx ?? this.db;
    const base = () => conn('image_digests').where({ containerImageId });
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'lastSeenAt', order: 'desc' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as ImageDigestRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }
}

export function toImageDigest(d: ImageDigestRow) {
  return { id: d.id, containerImageId: d.containerImageId, tag: d.tag, digest: d.digest, firstSeenAt: d.firstSeenAt, lastSeenAt: d.lastSeenAt };
}

/** What the API shows of an image; the detail read adds digests and linked services. */
export function toContainerImage(i: ContainerImageRow, extra?: { digests?: ImageDigestRow[]; services?: { id: string; name: string }[] }) {
  return {
    id: i.id, environmentId: i.environmentId, imageName: i.imageName, registryConnectionId: i.registryConnectionId,
    autoUpdate: i.autoUpdate, policy: i.policy ?? null, currentTag: i.currentTag, latestTag: i.latestTag ?? null, lastCheckedAt: i.lastCheckedAt ?? null,
    failedTag: i.failedTag ?? null, generation: i.generation, status: i.status, source: i.source,
    createdAt: i.createdAt, updatedAt: i.updatedAt,
    ...(extra?.digests && { digests: extra.digests.map(toImageDigest) }),
    ...(extra?.services && { services: extra.services.map((s) => ({ id: s.id, name: s.name })) }),
  };
}
