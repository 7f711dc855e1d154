import type { Knex } from 'knex';
import { camelizeRow } from '../case.js';
import { DayPartitions } from '../day-partitions.js';
import { serverMetricNames, type ContainerSample, type ServerMetricName, type ServerSample } from '../../monitoring/server-sample.js';

const TABLE = 'server_samples';

/** Metrics whose environment-wide value is the mean over servers; the others add up. */
const MEAN_METRICS = new Set<ServerMetricName>(['cpuPercent', 'load1', 'load5', 'load15']);
const snake = (m: string) => m.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
const INTEGER_METRICS = new Set<ServerMetricName>(serverMetricNames.filter((m) => m.endsWith('Bytes') || m === 'openFds' || m === 'tcpConnections' || m === 'processes'));

/**
 * History in columns: bucket starts (epoch seconds) and, as PostgreSQL wrote it, the JSON text of
 * the series (`{"cpuPercent" : [12.5,null,…], …}`, every metric, each array aligned with the
 * buckets, null where no sample had the metric).
 */
export interface HistoryColumns {
  buckets: number[];
  seriesJson: string;
}

/** One container's CPU and memory per bucket (epoch seconds, ascending), from its server's samples. */
export interface ContainerHistoryRow { serverId: string; name: string; bucket: number; cpuPercent: number | null; memoryUsedBytes: number | null }

export interface HistoryQuery {
  serverIds: string[];
  from: Date;
  to: Date;
  stepSec: number;
}

/**
 * server_samples, a table range-partitioned by UTC day (`server_samples_p20261126`). Partitions
 * are created ahead of time (`partitions.ensure`, by the collection job) and on demand when a
 * write meets a day that has none; retention drops whole partitions, never deletes rows.
 */
export class ServerSamplesRepository {
  readonly partitions: DayPartitions;

  constructor(private readonly db: Knex) {
    this.partitions = new DayPartitions(db, TABLE);
  }

  /** Stores a batch in one multi-row insert (column arrays through unnest: one statement, 17 parameters). */
  async insertServerSamples(samples: ServerSample[]): Promise<void> {
    if (samples.length === 0) return;
    await this.partitions.writeCreatingDays(samples.map((s) => s.at), () => this.insertOnce(samples));
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

  /** The newest sample of each server taken since `since` (servers without one are left out). */
  async latest(serverIds: string[], since: Date): Promise<ServerSample[]> {
    if (serverIds.length === 0) return [];
    const r = await this.db.raw<{ rows: Record<string, unknown>[] }>(
      `SELECT s.* FROM unnest(?::uuid[]) AS ids(id) CROSS JOIN LATERAL (
         SELECT * FROM ${TABLE} WHERE server_id = ids.id AND at >= ? ORDER BY at DESC LIMIT 1) s`,
      [serverIds, since.toISOString()] as never);
    return r.rows.map(toSample);
  }

  /** Each container's samples on these servers since `since` (a rollout's analysis reads its new containers'). */
  async containerSamplesSince(serverIds: string[], since: Date): Promise<Array<{ serverId: string; at: Date; containers: ContainerSample[] }>> {
    if (serverIds.length === 0) return [];
    const rows = await this.db(TABLE).whereIn('serverId', serverIds).where('at', '>=', since).whereNotNull('containers')
      .orderBy('at').select('serverId', 'at', 'containers');
    return (rows as Array<Record<string, unknown>>).map((r) => ({
      serverId: r.serverId as string, at: new Date(r.at as string), containers: (r.containers ?? []) as ContainerSample[],
    }));
  }

  /**
   * Buckets of `stepSec` over [from, to): per server the mean of its samples in the bucket, then
   * across servers the mean (percentages, load) or the sum (bytes, counts).
   */
  async history(q: HistoryQuery): Promise<HistoryColumns> {
    if (q.serverIds.length === 0) return { buckets: [], seriesJson: JSON.stringify(Object.fromEntries(serverMetricNames.map((m) => [m, []]))) };
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
    // PostgreSQL turns the buckets into columns: a week at one minute is 10,080 rows, which cost
    // far more to map one by one than arrays. The series come as JSON text that the route sends
    // as it is (parsing and re-serialising them was a third of the read); the bucket starts come
    // as numbers, for the controller to write as timestamps (to_char per point in PostgreSQL was
    // the dearer way, tried and reverted).
    // The buckets come sorted from the subquery and each array_agg keeps that order: an ORDER BY
    // inside each of the 14 aggregates was 14 sorts of the same rows (PostgreSQL 15 does not share
    // them), half the backend's time. Nothing joins at the outer level, so the order holds.
    // Two decimals for percentages and load (a mean's 17 digits would triple the JSON), rounded in
    // float8: round(numeric, 2) gave the same text for twice the backend time.
    const value = (m: ServerMetricName, c: string) => (INTEGER_METRICS.has(m) ? `round(${c})::bigint` : `round(${c} * 100) / 100`);
    // array_to_json prints compactly (json_agg puts a space after every comma: 10 % more to send)
    const array = (expr: string) => `coalesce(array_to_json(array_agg(${expr})), '[]'::json)`;
    const sql = `SELECT ${array('bucket')}::text AS buckets,
        json_build_object(${serverMetricNames.map((m, i) => `'${m}', ${array(value(m, cols[i]!))}`).join(', ')})::text AS series
      FROM (${buckets} ORDER BY bucket) b`;
    const r = await this.db.raw<{ rows: Array<{ buckets: string; series: string }> }>(sql, [q.stepSec, ...range] as never);
    return { buckets: JSON.parse(r.rows[0]!.buckets) as number[], seriesJson: r.rows[0]!.series };
  }

  /** The containers' stats of the samples of `serverIds` in [from, to), per bucket of `stepSec`, of the containers named. */
  async containerHistory(q: HistoryQuery & { names: string[] }): Promise<ContainerHistoryRow[]> {
    if (q.serverIds.length === 0 || q.names.length === 0) return [];
    const r = await this.db.raw<{ rows: Array<{ server_id: string; name: string; bucket: string; cpu: number | null; mem: number | null }> }>(
      `SELECT s.server_id, c->>'name' AS name,
          extract(epoch FROM date_bin(make_interval(secs => ?), s.at, timestamptz '1970-01-01 00:00:00+00'))::bigint AS bucket,
          round(avg((c->>'cpuPercent')::float8) * 100) / 100 AS cpu, round(avg((c->>'memoryUsedBytes')::float8)) AS mem
         FROM ${TABLE} s CROSS JOIN LATERAL jsonb_array_elements(s.containers) c
        WHERE s.server_id = ANY(?::uuid[]) AND s.at >= ? AND s.at < ? AND s.containers IS NOT NULL AND c->>'name' = ANY(?::text[])
        GROUP BY 1, 2, 3 ORDER BY 3`,
      [q.stepSec, q.serverIds, q.from.toISOString(), q.to.toISOString(), q.names] as never);
    return r.rows.map((row) => ({ serverId: row.server_id, name: row.name, bucket: Number(row.bucket), cpuPercent: row.cpu, memoryUsedBytes: row.mem === null ? null : Number(row.mem) }));
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
