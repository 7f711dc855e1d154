/**
 * The rows the manifest loader compares and its writer changes, for any kind with a table
 * (controller/kinds/ names the table): the manifest code computes columns, this file runs SQL.
 */
import type { Knex } from 'knex';
import { defaultSettingsRows } from '../../settings/environment-settings.js';
import { camelizeRow } from '../case.js';

type Db = Knex | Knex.Transaction;
type Row = Record<string, any>;

// The relation tables of the manifest kinds (settings, deployments, dependencies, attachments,
// cluster members), with the columns the comparison reads.
const RELATIONS: Array<[string, string[]]> = [
  ['environment_settings', ['*']],
  ['deployments', ['id', 'serviceId', 'serverId', 'containerName', 'composePath', 'adoptedContainerId', 'source']],
  ['service_dependencies', ['serviceId', 'dependsOnServiceId']],
  ['config_attachments', ['configFileId', 'serviceId', 'targetPath']],
  ['server_cluster_members', ['clusterId', 'serverId']],
];

/**
 * Every row of each table and of the relation tables, by table, in ONE round trip (the
 * statements of one simple query): on a busy machine each round trip costs milliseconds, and a
 * folder's comparison reads some twenty tables on every save.
 */
export async function readManifestRows(db: Db, tables: string[]): Promise<{ tables: Record<string, Row[]>; related: Record<string, Row[]> }> {
  const reads: Array<[string, string[]]> = [...tables.map((t): [string, string[]] => [t, ['*']]), ...RELATIONS];
  const sql = reads.map(([, columns]) => `select ${columns.map((c) => (c === '*' ? '*' : '??')).join(', ')} from ??`).join(';\n');
  const bindings = reads.flatMap(([table, columns]) => [...columns.filter((c) => c !== '*'), table]);
  const raw = await db.raw(sql, bindings);
  const results = (Array.isArray(raw) ? raw : [raw]) as Array<{ rows: Row[] }>;
  const rowsOf = (i: number) => results[i].rows.map((r) => camelizeRow(r) as Row);
  return {
    tables: Object.fromEntries(tables.map((t, i) => [t, rowsOf(i)])),
    related: Object.fromEntries(RELATIONS.map(([t], i) => [t, rowsOf(tables.length + i)])),
  };
}

export async function insertRow(trx: Knex.Transaction, table: string, columns: Row): Promise<string> {
  const [row] = await trx(table).insert(columns).returning('id');
  return row.id;
}

/** Writes columns of one row; `bump` names counters (generation, revision) to increase by one. */
export async function updateRow(trx: Knex.Transaction, table: string, id: string, columns: Row, bump: string[] = []): Promise<void> {
  await trx(table).where({ id }).update({
    ...columns, updatedAt: trx.fn.now(),
    ...Object.fromEntries(bump.map((c) => [c, trx.raw('?? + 1', [c])])),
  });
}

export async function deleteRow(trx: Knex.Transaction, table: string, id: string): Promise<void> {
  await trx(table).where({ id }).delete();
}

/** A row that still refers to one being deleted (a foreign key that neither cascades nor clears): its table and name. */
export interface RowInUse { table: string; name: string | null }

/**
 * Deletes a row unless another still refers to it; then nothing is deleted (a savepoint: the
 * transaction goes on) and the rows that use it are answered, at most three per reference, so
 * the caller can say in words what to change first.
 */
export async function deleteRowUnlessUsed(trx: Knex.Transaction, table: string, id: string): Promise<RowInUse[]> {
  try {
    await trx.transaction(async (savepoint) => {
      await savepoint(table).where({ id }).delete();
    });
    return [];
  } catch (e) {
    if ((e as { code?: string }).code !== '23503') throw e;
  }
  // the references that block a delete: NO ACTION and RESTRICT foreign keys to this table
  const refs = (await trx.raw(`
    select child.relname as "table", att.attname as "column"
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    join pg_attribute att on att.attrelid = c.conrelid and att.attnum = c.conkey[1]
    where c.contype = 'f' and parent.relname = ? and c.confdeltype in ('a', 'r')`, [table])).rows as Array<{ table: string; column: string }>;
  const users: RowInUse[] = [];
  for (const r of refs) {
    const rows = (await trx.raw('select * from ?? where ?? = ? limit 3', [r.table, r.column, id])).rows as Row[];
    for (const row of rows) users.push({ table: r.table, name: row.name ?? row.key ?? row.container_name ?? row.image_name ?? null });
  }
  return users;
}

// ---- Environment settings ----------------------------------------------------------------

export async function insertDefaultSettings(trx: Knex.Transaction, environmentId: string): Promise<void> {
  await trx('environment_settings').insert(defaultSettingsRows(environmentId));
}

/** The stored values of some settings modules of an environment, by module. */
export async function settingsOf(trx: Knex.Transaction, environmentId: string, modules: string[]): Promise<Record<string, Row>> {
  const rows = await trx('environment_settings').where({ environmentId }).whereIn('module', modules);
  return Object.fromEntries(rows.map((r: Row) => [r.module, r.values ?? {}]));
}

/** Sets some fields of one settings module, keeping the others. */
export async function mergeSettings(trx: Knex.Transaction, environmentId: string, module: string, values: Row): Promise<void> {
  const row = await trx('environment_settings').where({ environmentId, module }).first('values');
  await trx('environment_settings').insert({ environmentId, module, values: JSON.stringify({ ...(row?.values ?? {}), ...values }), updatedAt: trx.fn.now() })
    .onConflict(['environmentId', 'module']).merge();
}

// ---- Config file history -------------------------------------------------------------------

/** Records a config file's current content as its current revision, by the manifest. */
export async function addManifestRevision(trx: Knex.Transaction, configFileId: string, content: unknown): Promise<void> {
  const { revision } = await trx('config_files').where({ id: configFileId }).first('revision');
  await trx('config_file_revisions').insert({ configFileId, revision, content, actorName: 'manifest', reason: 'manifest' });
}

// ---- A service's deployments, dependencies and attachments ----------------------------------

export const deploymentsOfService = (trx: Knex.Transaction, serviceId: string): Promise<Row[]> => trx('deployments').where({ serviceId });

export async function insertDeployment(trx: Knex.Transaction, row: Row): Promise<void> {
  await trx('deployments').insert(row);
}

export async function updateDeployment(trx: Knex.Transaction, id: string, columns: Row): Promise<void> {
  await trx('deployments').where({ id }).update(columns);
}

export async function deleteDeployments(trx: Knex.Transaction, ids: string[]): Promise<void> {
  if (ids.length) await trx('deployments').whereIn('id', ids).delete();
}

export async function replaceDependencies(trx: Knex.Transaction, serviceId: string, dependsOnServiceIds: string[]): Promise<void> {
  await trx('service_dependencies').where({ serviceId }).delete();
  if (dependsOnServiceIds.length) await trx('service_dependencies').insert(dependsOnServiceIds.map((d) => ({ serviceId, dependsOnServiceId: d })));
}

/** Makes a server cluster's members exactly these servers. */
export async function replaceClusterMembers(trx: Knex.Transaction, clusterId: string, serverIds: string[]): Promise<void> {
  await trx('server_cluster_members').where({ clusterId }).delete();
  if (serverIds.length) await trx('server_cluster_members').insert(serverIds.map((serverId) => ({ clusterId, serverId })));
}

export async function replaceAttachments(trx: Knex.Transaction, serviceId: string, rows: Row[]): Promise<void> {
  await trx('config_attachments').where({ serviceId }).delete();
  if (rows.length) await trx('config_attachments').insert(rows);
}

/** As DELETE /api/webhook-subscriptions/{id}: its delivery history goes with it. */
export async function deleteSubscriptionDeliveries(trx: Knex.Transaction, subscriptionId: string): Promise<void> {
  await trx('delivery_outbox').where({ kind: 'subscription', targetId: subscriptionId }).delete();
}
