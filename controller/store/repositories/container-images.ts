import type { Knex } from 'knex';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';

export interface ContainerImageRow {
  id: string;
  environmentId: string;
  registryConnectionId: string | null;
  /** Without tag: registry.local:5000/acme/api. */
  imageName: string;
  autoUpdate: boolean;
  currentTag: string | null;
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

export const IMAGE_SPEC_FIELDS = ['imageName', 'registryConnectionId', 'autoUpdate'] as const;
export type ContainerImageSpec = Partial<Pick<ContainerImageRow, (typeof IMAGE_SPEC_FIELDS)[number]>>;

export class ContainerImagesRepository extends BaseRepository<ContainerImageRow> {
  constructor(db: Knex) {
    super(db, 'container_images', {
      container_images_env_name_unique: 'An image with this name already exists in the environment',
      container_images_registry_connection_id_foreign: 'The registry connection does not exist',
    });
  }

  async updateSpec(current: ContainerImageRow, spec: ContainerImageSpec, trx?: Knex.Transaction) {
    const changed = IMAGE_SPEC_FIELDS.filter((f) => spec[f] !== undefined && spec[f] !== current[f]);
    if (!changed.length) return { row: current, changed };
    const values = Object.fromEntries(changed.map((f) => [f, spec[f]]));
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

  async setCurrentTag(id: string, currentTag: string, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).update({ currentTag, updatedAt: this.db.fn.now() } as never);
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
    autoUpdate: i.autoUpdate, currentTag: i.currentTag, generation: i.generation, status: i.status, source: i.source,
    createdAt: i.createdAt, updatedAt: i.updatedAt,
    ...(extra?.digests && { digests: extra.digests.map(toImageDigest) }),
    ...(extra?.services && { services: extra.services.map((s) => ({ id: s.id, name: s.name })) }),
  };
}
