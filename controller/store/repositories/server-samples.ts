import type { Knex } from 'knex';
import { camelizeRow } from '../case.js';
import { serverMetricNames, type ContainerSample, type ServerMetricName, type ServerSample } from '../../monitoring/server-sample.js';

const TABLE = 'server_samples';
const DAY_MS = 86_400_000;
/** Partition names carry their UTC day: server_samples_p20261126. */
const PARTITION_NAME = /^server_samples_p(\d{4})(\d{2})(\d{2})$/;
// PostgreSQL: "no partition of relation … found for row"
const NO_PARTITION = '23514';

/** Metrics whose environment-wide value is the mean over servers; the others add up. */
const MEAN_METRICS = new Set<ServerMetricName>(['cpuPercent', 'load1', 'load5', 'load15']);
const snake = (m: string) => m.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
const INTEGER_METRICS = new Set<ServerMetricName>(serverMetricNames.filter((m) => m.endsWith('Bytes') || m === 'openFds' || m === 'tcpConnections' || m === 'processes'));

const dayStart = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
const partitionName = (day: Date) => `${TABLE}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

/** One downsampled bucket: its start and each metric's value (absent when no sample had it). */
/** History in columns: bucket starts (epoch seconds) and one aligned array per metric, null where no sample had it. */
export interface HistoryColumns {
  buckets: number[];
  values: Record<ServerMetricName, Array<number | null>>;
}

export interface HistoryQuery {
  serverIds: string[];
  from: Date;
  to: Date;
  stepSec: number;
}

/**
 * server_samples, a table range-partitioned by UTC day. Partitions are created ahead of time
 * (`ensurePartitions`, by the collection job) and on demand when a write meets a day that has
 * none; retention drops whole partitions (`dropPartitionsBefore`), never deletes rows.
 */
export class ServerSamplesRepository {
  constructor(private readonly db: Knex) {}

  /** Stores a batch in one multi-row insert (column arrays through unnest: one statement, 17 parameters). */
  async insertServerSamples(samples: ServerSample[]): Promise<void> {
    if (samples.length === 0) return;
    try {
      await this.insertOnce(samples);
    } catch (e) {
      if ((e as { code?: string }).code !== NO_PARTITION) throw e;
      const days = [...new Set(samples.map((s) => dayStart(s.at).getTime()))];
      for (const d of days) await this.ensurePartitions(new Date(d), 1);
      await this.insertOnce(samples);
    }
  }

  private insertOnce(samples: ServerSample[]) {
    const col = <T>(f: (s: ServerSample) => T | undefined) => samples.map((s) => f(s) ?? null);
    const metricCols = serverMetricNames.map((m) => col((s) => s[m]));
    const metricTypes = serverMetricNames.map((m) => (INTEGER_METRICS.has(m) ? '?::bigint[]' : '?::float8[]'));
    return this.db.raw(
      `INSERT INTO ${TABLE} (server_id, at, source, ${serverMetricNames.map(snake).join(', ')}, containers)
       SELECT * FROM unnest(?::uuid[], ?::timestamptz[], ?::text[], ${metricTypes.join(', ')}, ?::jsonb[])`,
      [
        col((s) => s.serverId), col((s) => s.at.toISOString()), col((s) => s.source),
        ...metricCols.map((c) => c.map((v) => (v === null ? null : Number(v)))),
        col((s) => (s.containers ? JSON.stringify(s.containers) : undefined)),
      ] as never,
    );
  }

  /** Creates the partitions of `days` UTC days from `from`'s day on; answers the names it created. */
  async ensurePartitions(from: Date, days: number): Promise<string[]> {
    const existing = new Set(await this.partitionNames());
    const created: string[] = [];
    for (let i = 0; i < days; i++) {
      const start = new Date(dayStart(from).getTime() + i * DAY_MS);
      const name = partitionName(start);
      if (existing.has(name)) continue;
      const end = new Date(start.getTime() + DAY_MS);
      try {
        await this.db.raw(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${TABLE} FOR VALUES FROM ('${start.toISOString()}') TO ('${end.toISOString()}')`);
        created.push(name);
      } catch (e) {
        // another replica (or a concurrent ingest) created it between our look and our create
        const code = (e as { code?: string }).code;
        if (code !== '42P07' && code !== '23505') throw e;
      }
    }
    return created;
  }

  /** Drops every partition whose whole day lies before `cutoff`; answers the names dropped. */
  async dropPartitionsBefore(cutoff: Date): Promise<string[]> {
    const dropped: string[] = [];
    for (const name of await this.partitionNames()) {
      const m = PARTITION_NAME.exec(name);
      if (!m) continue;
      const end = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS;
      if (end > cutoff.getTime()) continue;
      await this.db.raw(`DROP TABLE IF EXISTS ${name}`);
      dropped.push(name);
    }
    return dropped;
  }

  /**
   * VACUUMs the partitions of past days that took inserts since their last vacuum: it marks their
   * pages all-visible, so history reads of those days stay index-only scans (never heap reads).
   */
  async vacuumPastPartitions(before: Date): Promise<string[]> {
    const r = await this.db.raw<{ rows: Array<{ name: string }> }>(
      `SELECT relname AS name FROM pg_stat_user_tables WHERE relname LIKE 'server\\_samples\\_p%' AND n_ins_since_vacuum > 0`);
    const done: string[] = [];
    for (const { name } of r.rows) {
      const m = PARTITION_NAME.exec(name);
      if (!m || Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS > before.getTime()) continue;
      await this.db.raw(`VACUUM (ANALYZE) ${name}`);
      done.push(name);
    }
    return done;
  }

  /** The partitions that exist, oldest first. */
  async partitionNames(): Promise<string[]> {
    const r = await this.db.raw<{ rows: Array<{ name: string }> }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = ?::regclass ORDER BY c.relname`, [TABLE]);
    return r.rows.map((row) => row.name);
  }

  /** The newest sample of each server taken since `since` (servers without one are left out). */
  async latest(serverIds: string[], since: Date): Promise<ServerSample[]> {
    if (serverIds.length === 0) return [];
    const r = await this.db.raw<{ rows: Record<string, unknown>[] }>(
      `SELECT s.* FROM unnest(?::uuid[]) AS ids(id) CROSS JOIN LATERAL (
         SELECT * FROM ${TABLE} WHERE server_id = ids.id AND at >= ? ORDER BY at DESC LIMIT 1) s`,
      [serverIds, since.toISOString()] as never);
    return r.rows.map(toSample);
  }

  /**
   * Buckets of `stepSec` over [from, to): per server the mean of its samples in the bucket, then
   * across servers the mean (percentages, load) or the sum (bytes, counts).
   */
  async history(q: HistoryQuery): Promise<HistoryColumns> {
    const empty = (): HistoryColumns => ({ buckets: [], values: Object.fromEntries(serverMetricNames.map((m) => [m, []])) as unknown as HistoryColumns['values'] });
    if (q.serverIds.length === 0) return empty();
    const cols = serverMetricNames.map(snake);
    // date_bin: integer arithmetic on the timestamp, far cheaper than numeric epoch maths
    const bucket = `extract(epoch FROM date_bin(make_interval(secs => ?), at, timestamptz '1970-01-01 00:00:00+00'))::bigint`;
    const where = `server_id = ANY(?::uuid[]) AND at >= ? AND at < ?`;
    const range = [q.serverIds, q.from.toISOString(), q.to.toISOString()];
    // float8 accumulation: avg of a bigint would sum in numeric, several times slower
    const perServer = cols.map((c) => `avg(${c}::float8) AS ${c}`).join(', ');
    // one server: a single aggregation; several: per server first, then across them
    const buckets = q.serverIds.length === 1
      ? `SELECT ${bucket} AS bucket, ${perServer} FROM ${TABLE} WHERE ${where} GROUP BY 1`
      : `SELECT bucket, ${serverMetricNames.map((m, i) => `${MEAN_METRICS.has(m) ? 'avg' : 'sum'}(${cols[i]})::float8 AS ${cols[i]}`).join(', ')}
         FROM (SELECT server_id, ${bucket} AS bucket, ${perServer} FROM ${TABLE} WHERE ${where} GROUP BY server_id, 2) per_server
         GROUP BY bucket`;
    // PostgreSQL turns the buckets into columns and one JSON value: a week at one minute is 10,080
    // rows, and one JSON.parse of arrays costs the controller far less than mapping each row
    // two decimals for percentages and load: a mean's 17 digits would triple the JSON to parse and send
    const column = (m: ServerMetricName, c: string) => (INTEGER_METRICS.has(m) ? `round(${c})::bigint` : `round(${c}::numeric, 2)`);
    const sql = `SELECT json_build_object('buckets', json_agg(bucket ORDER BY bucket),
        ${serverMetricNames.map((m, i) => `'${m}', json_agg(${column(m, cols[i]!)} ORDER BY bucket)`).join(', ')}) AS h
      FROM (${buckets}) b`;
    const r = await this.db.raw<{ rows: Array<{ h: Record<string, Array<number | null> | null> }> }>(sql, [q.stepSec, ...range] as never);
    const h = r.rows[0]!.h;
    if (!h.buckets) return empty();
    return { buckets: h.buckets as number[], values: Object.fromEntries(serverMetricNames.map((m) => [m, h[m]!])) as HistoryColumns['values'] };
  }
}

function toSample(raw: Record<string, unknown>): ServerSample {
  const row = camelizeRow(raw) as Record<string, unknown>;
  const sample: ServerSample = { serverId: String(row.serverId), at: row.at as Date, source: row.source as ServerSample['source'] };
  for (const m of serverMetricNames) {
    if (row[m] !== null && row[m] !== undefined) sample[m] = Number(row[m]);
  }
  if (row.containers) sample.containers = row.containers as ContainerSample[];
  return sample;
}
