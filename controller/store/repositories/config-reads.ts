import type { Knex } from 'knex';

export interface ConfigUsageRows {
  files: Array<{ id: string; name: string; content: string }>;
  fragments: Array<{ name: string; content: string }>;
  services: Array<{ id: string; name: string; env: unknown }>;
  attachments: Array<{ configFileId: string; serviceId: string }>;
}

/** One environment's vars, secrets, fragments and their users, read together for rendering and usage. */
export class ConfigReads {
  constructor(private readonly db: Knex) {}

  /**
   * The environment's vars, sealed secrets and (unless `fragments` is false) fragments, in one
   * query (one round trip where three parallel ones cost three queries' work). A preview
   * environment (docs/git-sources.md#previews) also sees its parent's vars and, by reference (read
   * here at each render, never copied into a row), the parent's secrets its source's
   * `previews.secrets` lists: no other. Its own win over the parent's.
   */
  async renderInputs(environmentId: string, trx?: Knex.Transaction, fragments = true) {
    const { rows } = await (trx ?? this.db).raw(`
      with preview_grant as (
        select e.parent_environment_id as parent, coalesce(g.previews->'secrets', '[]'::jsonb) as names
        from environments e left join git_sources g on g.environment_id = e.parent_environment_id
        where e.id = ? and e.parent_environment_id is not null)
      select 'v' as kind, v.key, v.value, 0 as own from vars v join preview_grant p on v.environment_id = p.parent
      union all select 's', s.key, s.value_sealed, 0 from secrets s join preview_grant p on s.environment_id = p.parent where jsonb_exists(p.names, s.key)
      union all select 'v', key, value, 1 from vars where environment_id = ?
      union all select 's', key, value_sealed, 1 from secrets where environment_id = ?
      ${fragments ? 'union all select \'f\', name, content, 1 from config_fragments where environment_id = ?' : ''}`,
    fragments ? [environmentId, environmentId, environmentId, environmentId] : [environmentId, environmentId, environmentId]);
    const of = (kind: string) => {
      const byKey = new Map<string, { key: string; value: string }>();
      for (const r of (rows as Array<{ kind: string; key: string; value: string; own: number }>).filter((x) => x.kind === kind).sort((a, b) => a.own - b.own)) byKey.set(r.key, r);
      return [...byKey.values()];
    };
    return {
      vars: of('v').map((r) => ({ key: r.key, value: r.value })),
      secrets: of('s').map((r) => ({ key: r.key, valueSealed: r.value })),
      fragments: of('f').map((r) => ({ name: r.key, content: r.value })),
    };
  }

  /** Sealed values of the environment's secrets, current and past. */
  async sealedSecretValues(environmentId: string): Promise<string[]> {
    // a preview's output is redacted of the parent's secrets it renders too
    const { secrets: granted } = await this.renderInputs(environmentId, undefined, false);
    const current = [...await this.db('secrets').where({ environmentId }).select('valueSealed'), ...granted];
    const old = await this.db('secret_value_history').where({ environmentId }).select('valueSealed');
    return [...current, ...old].map((r: { valueSealed: string }) => r.valueSealed);
  }

  async usageInputs(environmentId: string): Promise<ConfigUsageRows> {
    const [files, fragments, services, attachments] = await Promise.all([
      this.db('config_files').where({ environmentId, kind: 'template' }).select('id', 'name', 'content'),
      this.db('config_fragments').where({ environmentId }).select('name', 'content'),
      this.db('services').where({ environmentId }).select('id', 'name', 'env'),
      this.db('config_attachments').where({ environmentId }).select('configFileId', 'serviceId'),
    ]);
    return { files, fragments, services, attachments };
  }

  /** Templates of the environment whose content holds `text` (a cheap pre-filter; callers parse). */
  templatesContaining(environmentId: string, text: string): Promise<Array<{ id: string; name: string; content: string }>> {
    return this.db('config_files').where({ environmentId, kind: 'template' })
      .andWhereRaw('position(? in content) > 0', [text]).select('id', 'name', 'content').orderBy('name');
  }

  /** Attachments of these files that were synced at least once. */
  async syncedAttachmentsOf(configFileIds: string[]): Promise<string[]> {
    const rows = await this.db('config_attachments').whereIn('configFileId', configFileIds)
      .whereExists(this.db('config_sync_states').whereRaw('config_sync_states.attachment_id = config_attachments.id'))
      .select('id').orderBy('id');
    return rows.map((r: { id: string }) => r.id);
  }

  /** Synced attachments of templates that include some fragment, with the time of their oldest sync. */
  fragmentTemplateSyncs(): Promise<Array<{ id: string; environmentId: string; content: string; oldest: Date }>> {
    return this.db('config_attachments').join('config_files', 'config_files.id', 'config_attachments.configFileId')
      .join('config_sync_states', 'config_sync_states.attachmentId', 'config_attachments.id')
      .where('config_files.kind', 'template').andWhereRaw("position('${fragment:' in config_files.content) > 0")
      .groupBy('config_attachments.id', 'config_files.environmentId', 'config_files.content')
      .select('config_attachments.id', 'config_files.environmentId', 'config_files.content')
      .min({ oldest: 'config_sync_states.syncedAt' });
  }

  /** When each fragment of every environment last changed. */
  fragmentChanges(): Promise<Array<{ environmentId: string; name: string; updatedAt: Date }>> {
    return this.db('config_fragments').select('environmentId', 'name', 'updatedAt');
  }

  /** The secret keys and fragments of these environments: what tells a template that may hold a secret. */
  async secretKeysAndFragments(environmentIds: string[]) {
    const [secrets, fragments] = await Promise.all([
      this.db('secrets').whereIn('environmentId', environmentIds).select('environmentId', 'key'),
      this.db('config_fragments').whereIn('environmentId', environmentIds).select('environmentId', 'name', 'content'),
    ]);
    return {
      secrets: secrets as Array<{ environmentId: string; key: string }>,
      fragments: fragments as Array<{ environmentId: string; name: string; content: string }>,
    };
  }

  /** The deployments of these services (optionally only those on one server), with their server's name. */
  placementsOf(serviceIds: string[], serverId?: string): Promise<ConfigPlacement[]> {
    const q = this.db('deployments').join('servers', 'servers.id', 'deployments.serverId')
      .whereIn('deployments.serviceId', serviceIds)
      .select('deployments.id as deploymentId', 'deployments.containerName as containerName', 'deployments.serviceId as serviceId',
        'servers.id as serverId', 'servers.name as serverName');
    if (serverId) q.where('servers.id', serverId);
    return q;
  }
}

export interface ConfigPlacement { deploymentId: string; containerName: string; serviceId: string; serverId: string; serverName: string }
