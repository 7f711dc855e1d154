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

  async renderInputs(environmentId: string, trx?: Knex.Transaction) {
    const q = trx ?? this.db;
    const [vars, secrets, fragments] = await Promise.all([
      q('vars').where({ environmentId }).select('key', 'value'),
      q('secrets').where({ environmentId }).select('key', 'valueSealed'),
      q('config_fragments').where({ environmentId }).select('name', 'content'),
    ]);
    return {
      vars: vars as Array<{ key: string; value: string }>,
      secrets: secrets as Array<{ key: string; valueSealed: string }>,
      fragments: fragments as Array<{ name: string; content: string }>,
    };
  }

  /** Sealed values of the environment's secrets, current and past. */
  async sealedSecretValues(environmentId: string): Promise<string[]> {
    const current = await this.db('secrets').where({ environmentId }).select('valueSealed');
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
}
