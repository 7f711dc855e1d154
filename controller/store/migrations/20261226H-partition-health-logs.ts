import type { Knex } from 'knex';

// health_logs grows by one row per check per pass (some 4 M rows a day at 100 servers) and was
// pruned hourly by DELETE, which left vacuum work and index bloat behind. From here on it is
// range-partitioned by UTC day like server_samples (`health_logs_pYYYYMMDD`, created ahead by the
// health worker and on demand by a write that meets a missing day, see store/day-partitions.ts),
// and retention drops whole days. The existing table is converted in place, in the migration's
// transaction: renamed aside, its rows copied into the partitioned table, then dropped.
//
// The foreign keys stay (a partitioned table may reference plain tables): deleting an environment,
// a server or a deployment still cascades into its logs, through the indexes of 20261220H that the
// parent keeps (each partition gets its own copy). No table references health_logs.

const COLUMNS = 'id, environment_id, kind, check_key, server_id, deployment_id, target, status, latency_ms, error, details, checked_at';
const DEFINITION = `
  id bigint NOT NULL DEFAULT nextval('health_logs_id_seq'),
  environment_id uuid NOT NULL,
  kind text NOT NULL,
  check_key text NOT NULL,
  server_id uuid,
  deployment_id uuid,
  target text NOT NULL,
  status text NOT NULL,
  latency_ms integer NOT NULL,
  error text,
  details jsonb NOT NULL DEFAULT '{}',
  checked_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT health_logs_environment_id_foreign FOREIGN KEY (environment_id) REFERENCES environments (id) ON DELETE CASCADE,
  CONSTRAINT health_logs_server_id_foreign FOREIGN KEY (server_id) REFERENCES servers (id) ON DELETE CASCADE,
  CONSTRAINT health_logs_deployment_id_foreign FOREIGN KEY (deployment_id) REFERENCES deployments (id) ON DELETE CASCADE`;
// the names knex gave them in 20261216L and 20261220H; index names are schema-wide, so the old
// table's go before the new table takes them
const INDEXES: Array<[string, string]> = [
  ['health_logs_environment_id_checked_at_index', 'environment_id, checked_at'],
  ['health_logs_check_key_checked_at_index', 'check_key, checked_at'],
  ['health_logs_server_id_index', 'server_id'],
  ['health_logs_deployment_id_index', 'deployment_id'],
  ['health_logs_checked_at_index', 'checked_at'],
];

async function setAside(knex: Knex, aside: string): Promise<void> {
  await knex.raw(`ALTER TABLE health_logs RENAME TO ${aside}`);
  await knex.raw(`ALTER INDEX health_logs_pkey RENAME TO ${aside}_pkey`);
  for (const [name] of INDEXES) await knex.raw(`DROP INDEX ${name}`);
}

async function moveIn(knex: Knex, aside: string): Promise<void> {
  for (const [name, cols] of INDEXES) await knex.raw(`CREATE INDEX ${name} ON health_logs (${cols})`);
  await knex.raw(`INSERT INTO health_logs (${COLUMNS}) SELECT ${COLUMNS} FROM ${aside}`);
  // the id sequence lives on with the new table (dropping the old one must not take it along)
  await knex.raw('ALTER SEQUENCE health_logs_id_seq OWNED BY health_logs.id');
  await knex.raw(`DROP TABLE ${aside}`);
}

export async function up(knex: Knex): Promise<void> {
  await setAside(knex, 'health_logs_unpartitioned');
  await knex.raw(`CREATE TABLE health_logs (${DEFINITION}, CONSTRAINT health_logs_pkey PRIMARY KEY (id, checked_at)) PARTITION BY RANGE (checked_at)`);
  // a partition for every UTC day that has rows, and for today and the next two days
  await knex.raw(`
    DO $$
    DECLARE d date;
    BEGIN
      FOR d IN
        SELECT DISTINCT (checked_at AT TIME ZONE 'UTC')::date FROM health_logs_unpartitioned
        UNION SELECT (now() AT TIME ZONE 'UTC')::date + i FROM generate_series(0, 2) i
      LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF health_logs FOR VALUES FROM (%L) TO (%L)',
          'health_logs_p' || to_char(d, 'YYYYMMDD'), d::timestamp AT TIME ZONE 'UTC', (d + 1)::timestamp AT TIME ZONE 'UTC');
      END LOOP;
    END $$`);
  await moveIn(knex, 'health_logs_unpartitioned');
}

export async function down(knex: Knex): Promise<void> {
  await setAside(knex, 'health_logs_partitioned');
  await knex.raw(`CREATE TABLE health_logs (${DEFINITION}, CONSTRAINT health_logs_pkey PRIMARY KEY (id))`);
  await moveIn(knex, 'health_logs_partitioned');
}
