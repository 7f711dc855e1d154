import type { Knex } from 'knex';
import { camelizeRow } from '../case.js';
import { serverMetricNames, type ContainerSample, type ServerMetricName, type ServerSample } from '../../monitoring/server-sample.js';
import type { ColumnarHistory } from '../../monitoring/history.js';

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
   * The columnar history the API answers (`ColumnarHistory`), as JSON text that PostgreSQL builds:
   * buckets of `stepSec` over [from, to), per server the mean of its samples in the bucket, then
   * across servers the mean (percentages, load) or the sum (bytes, counts). The route sends the
   * text as it comes: a week at one minute is 10,080 points of 13 metrics (about 1 MB), and
   * parsing and re-serialising it cost the controller more CPU than the query itself.
   */
  async historyJson(q: HistoryQuery): Promise<string> {
    const frame = [q.from.toISOString(), q.to.toISOString(), q.stepSec];
    if (q.serverIds.length === 0) {
      return JSON.stringify({ from: frame[0], to: frame[1], stepSec: q.stepSec, timestamps: [], series: Object.fromEntries(serverMetricNames.map((m) => [m, []])) });
    }
    const cols = serverMetricNames.map(snake);
    const bucket = `date_bin(make_interval(secs => ?), at, timestamptz '1970-01-01 00:00:00+00')`;
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
    // integers whole; percentages and load to two decimals in float8 (printed shortest: 12.34),
    // far cheaper than numeric rounding, and a mean's 17 digits would triple the text
    const value = (m: ServerMetricName, c: string) => (INTEGER_METRICS.has(m) ? `round(${c})::bigint` : `round(${c} * 100) / 100`);
    // array_to_json prints compactly (json_agg puts a space after every comma: 10 % more to send)
    const array = (expr: string) => `coalesce(array_to_json(array_agg(${expr})), '[]'::json)`;
    // the aggregates read the buckets in the subquery's order: one sort instead of one per column
    const sql = `SELECT json_build_object('from', ?::text, 'to', ?::text, 'stepSec', ?::int,
        'timestamps', ${array(`to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)},
        'series', json_build_object(${serverMetricNames.map((m, i) => `'${m}', ${array(value(m, cols[i]!))}`).join(', ')}))::text AS h
      FROM (${buckets} ORDER BY bucket) b`;
    const r = await this.db.raw<{ rows: Array<{ h: string }> }>(sql, [...frame, q.stepSec, ...range] as never);
    return r.rows[0]!.h;
  }

  /** `historyJson`, parsed. */
  async history(q: HistoryQuery): Promise<ColumnarHistory> {
    return JSON.parse(await this.historyJson(q)) as ColumnarHistory;
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
