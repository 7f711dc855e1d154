import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Server metrics as a time series: one narrow row per server per collection, range-partitioned
  // by day (`server_samples_pYYYYMMDD`, created ahead by the collector, see
  // repositories/server-samples.ts) so that retention drops whole partitions instead of
  // deleting rows. No foreign key to servers: a batch of a thousand servers must not fail
  // because one server was deleted during the cycle; reads join servers, and the samples of a
  // deleted server leave with their partitions.
  await knex.raw(`
    CREATE TABLE server_samples (
      server_id uuid NOT NULL,
      at timestamptz NOT NULL,
      source text NOT NULL CHECK (source IN ('ssh', 'agent')),
      cpu_percent real,
      memory_used_bytes bigint,
      memory_total_bytes bigint,
      swap_used_bytes bigint,
      swap_total_bytes bigint,
      disk_used_bytes bigint,
      disk_total_bytes bigint,
      load1 real,
      load5 real,
      load15 real,
      open_fds integer,
      tcp_connections integer,
      processes integer,
      containers jsonb
    ) PARTITION BY RANGE (at)`);
  // Covering: a history read of one server is an index-only scan over that server's adjacent
  // entries, instead of one heap page per sample (a cycle writes every server's row side by side,
  // so one server's rows are spread over as many pages as it has samples).
  await knex.raw(`CREATE INDEX server_samples_server_at ON server_samples (server_id, at) INCLUDE (
    cpu_percent, memory_used_bytes, memory_total_bytes, swap_used_bytes, swap_total_bytes, disk_used_bytes, disk_total_bytes,
    load1, load5, load15, open_fds, tcp_connections, processes)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE server_samples');
}
