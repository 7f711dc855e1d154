import type { Knex } from 'knex';

// Scheduled jobs (kind Job, docs/jobs.md): a service's current revision run with a command on a
// cron schedule. `next_run_at` is the occurrence the scheduler waits for, moved forward with a
// compare-and-set when it is claimed (as a database's next_backup_at); null: not computed yet.
//
// job_runs is one row per occurrence the scheduler claimed (or per trigger): the unique
// (job_id, scheduled_at) of scheduled rows is the proof an occurrence is taken once, however many
// replicas ask. A row that started a container points at its service_runs row (the one-off run
// machinery: status, exit code, log tail, heartbeat live there, once); a skipped or missed
// occurrence has no container and no service_runs row, which is why the claim is a table of its
// own and not columns of service_runs.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('jobs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('id').inTable('environments').onDelete('CASCADE');
    t.text('name').notNullable();
    t.uuid('service_id').notNullable().references('id').inTable('services').onDelete('CASCADE');
    t.jsonb('command').notNullable();
    t.text('schedule').notNullable();
    t.text('time_zone').nullable();
    t.uuid('server_id').nullable().references('id').inTable('servers').onDelete('SET NULL');
    t.jsonb('server_selector').nullable();
    t.text('concurrency_policy').notNullable().defaultTo('forbid');
    t.integer('deadline_sec').nullable();
    t.integer('history_limit').notNullable().defaultTo(10);
    t.boolean('enabled').notNullable().defaultTo(true);
    t.timestamp('next_run_at', { useTz: true }).nullable();
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'jobs_env_name_unique' });
    t.index(['next_run_at']);
  });
  await knex.raw(`alter table jobs add constraint jobs_concurrency_policy_check check (concurrency_policy in ('forbid', 'replace', 'allow'))`);

  await knex.schema.createTable('job_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('job_id').notNullable().references('id').inTable('jobs').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('id').inTable('environments').onDelete('CASCADE');
    t.text('trigger').notNullable();
    t.timestamp('scheduled_at', { useTz: true }).notNullable();
    // started: its container's run (run_id) says how it went; the others never started one
    t.text('outcome').notNullable();
    t.text('reason').nullable();
    t.uuid('run_id').nullable().references('id').inTable('service_runs').onDelete('SET NULL');
    t.text('created_by').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['job_id', 'created_at']);
  });
  await knex.raw(`alter table job_runs add constraint job_runs_trigger_check check (trigger in ('schedule', 'manual'))`);
  await knex.raw(`alter table job_runs add constraint job_runs_outcome_check check (outcome in ('started', 'skipped', 'missed', 'failed'))`);
  await knex.raw(`create unique index job_runs_occurrence_unique on job_runs (job_id, scheduled_at) where trigger = 'schedule'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('job_runs');
  await knex.schema.dropTable('jobs');
}
