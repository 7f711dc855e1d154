import type { Knex } from 'knex';

// A manifest apply wrote a null field of a kind's JSON columns as the jsonb value `null` instead of
// SQL NULL (controller/manifests/write-objects.ts, fixed with this migration). Queries such as
// "the services with an ingress" (`whereNotNull('ingress')`) took it for a value: a server running
// a manifest service without an ingress beside one with an ingress had its proxy fail
// ("Cannot read properties of null"). Rows already written are made SQL NULL here, in the nullable
// JSON columns of the kinds manifests write.
const COLUMNS: Record<string, string[]> = {
  container_images: ['policy'],
  external_entities: ['attributes'],
  jobs: ['command', 'server_selector'],
  servers: ['tags', 'labels'],
  services: ['env', 'ports', 'volumes', 'command', 'health_check', 'server_selector', 'rollout', 'ingress'],
  volumes: ['labels', 'backup'],
  webhook_subscriptions: ['headers', 'event_types'],
};

export async function up(knex: Knex): Promise<void> {
  // aliased: the store's knex answers in camelCase
  const nullable = await knex('information_schema.columns').where({ table_schema: knex.raw('current_schema()'), is_nullable: 'YES', data_type: 'jsonb' })
    .whereIn('table_name', Object.keys(COLUMNS)).select('table_name as t', 'column_name as c') as Array<{ t: string; c: string }>;
  for (const { t: table, c: column } of nullable) {
    if (!COLUMNS[table]?.includes(column)) continue;
    await knex(table).whereRaw('?? = \'null\'::jsonb', [column]).update({ [column]: null });
  }
}

export async function down(): Promise<void> {
  // SQL NULL is what these columns meant: nothing to put back
}
