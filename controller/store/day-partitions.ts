import type { Knex } from 'knex';

const DAY_MS = 86_400_000;
// PostgreSQL: "no partition of relation … found for row"
const NO_PARTITION = '23514';
// another replica (or a concurrent write) created the partition between our look and our create
const ALREADY_THERE = new Set(['42P07', '23505']);

export const utcDayStart = (t: Date) => new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
const isMissingPartition = (e: unknown) => (e as { code?: string }).code === NO_PARTITION;

/**
 * The daily partitions of a table range-partitioned by UTC day (`<table>_pYYYYMMDD`): created
 * ahead of time and on demand, dropped whole once past retention (no row deletes, no vacuum
 * debt), and vacuumed once their day is over. Shared by server_samples and health_logs.
 */
export class DayPartitions {
  private readonly pattern: RegExp;
  /** Days (epoch ms of their start) seen to have a partition: their writes need no savepoint. */
  private readonly known = new Set<number>();

  constructor(private readonly db: Knex, readonly table: string) {
    this.pattern = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`);
  }

  nameOf(day: Date): string {
    return `${this.table}_p${utcDayStart(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
  }

  /** Creates the partitions of `days` UTC days from `from`'s day on; answers the names it created. */
  async ensure(from: Date, days: number, trx?: Knex.Transaction): Promise<string[]> {
    const existing = new Set(await this.names(trx));
    const created: string[] = [];
    for (let i = 0; i < days; i++) {
      const start = new Date(utcDayStart(from).getTime() + i * DAY_MS);
      const name = this.nameOf(start);
      // in a transaction a partition exists for the others only once it commits: not known yet
      if (existing.has(name)) {
        if (!trx) this.known.add(start.getTime());
        continue;
      }
      const end = new Date(start.getTime() + DAY_MS);
      const sql = `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${this.table} FOR VALUES FROM ('${start.toISOString()}') TO ('${end.toISOString()}')`;
      try {
        // inside a caller's transaction a failed statement would abort it: a savepoint keeps it alive
        await (trx ? trx.transaction((sp) => sp.raw(sql)) : this.db.raw(sql));
        created.push(name);
      } catch (e) {
        if (!ALREADY_THERE.has((e as { code?: string }).code ?? '')) throw e;
      }
      if (!trx) this.known.add(start.getTime());
    }
    return created;
  }

  /**
   * Runs a write; when it meets a day without a partition, creates the partitions of `days` and
   * runs it once more, so a write never fails on a missing day. In a transaction the first try
   * runs under a savepoint (the only way the transaction survives the failed statement) unless
   * every day is known to have its partition: a check a second would pay two more round trips.
   */
  async writeCreatingDays<T>(days: Date[], write: (q: Knex | Knex.Transaction) => Promise<T>, trx?: Knex.Transaction): Promise<T> {
    const starts = [...new Set(days.map((x) => utcDayStart(x).getTime()))];
    if (trx && starts.every((d) => this.known.has(d))) return write(trx);
    try {
      const out = await (trx ? trx.transaction((sp) => write(sp)) : write(this.db));
      starts.forEach((d) => this.known.add(d));
      return out;
    } catch (e) {
      if (!isMissingPartition(e)) throw e;
      for (const d of starts) await this.ensure(new Date(d), 1, trx);
      return write(trx ?? this.db);
    }
  }

  /** Drops every partition whose whole day lies before `cutoff`; answers the names dropped. */
  async dropBefore(cutoff: Date): Promise<string[]> {
    const dropped: string[] = [];
    for (const name of await this.names()) {
      if (this.dayEnd(name) > cutoff.getTime()) continue;
      await this.db.raw(`DROP TABLE IF EXISTS ${name}`);
      this.known.delete(this.dayEnd(name) - DAY_MS);
      dropped.push(name);
    }
    return dropped;
  }

  /**
   * VACUUMs the partitions of past days that took inserts since their last vacuum: it marks their
   * pages all-visible, so reads of those days stay index-only scans (never heap reads).
   */
  async vacuumPast(before: Date): Promise<string[]> {
    const r = await this.db.raw<{ rows: Array<{ name: string }> }>(
      `SELECT relname AS name FROM pg_stat_user_tables WHERE relname LIKE ? AND n_ins_since_vacuum > 0`,
      [`${this.table.replaceAll('_', '\\_')}\\_p%`]);
    const done: string[] = [];
    for (const { name } of r.rows) {
      if (this.dayEnd(name) > before.getTime()) continue;
      await this.db.raw(`VACUUM (ANALYZE) ${name}`);
      done.push(name);
    }
    return done;
  }

  /** The partitions that exist, oldest first. */
  async names(trx?: Knex.Transaction): Promise<string[]> {
    const r = await (trx ?? this.db).raw<{ rows: Array<{ name: string }> }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = ?::regclass ORDER BY c.relname`, [this.table]);
    return r.rows.map((row) => row.name);
  }

  /** The end of a partition's day in epoch ms; +Infinity for a name off the pattern (never dropped). */
  private dayEnd(name: string): number {
    const m = this.pattern.exec(name);
    return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) + DAY_MS : Infinity;
  }
}
