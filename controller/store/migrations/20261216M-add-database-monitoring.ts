import type { Knex } from 'knex';
import { DEFAULT_DATABASE_TYPES } from '../../catalog/default-types.js';

// Database monitoring: when the next probe of a database is due (a compare-and-set moves it, so
// one replica probes once per interval), and the built-in types' new `size` command. Commands an
// operator added are kept; shipped ones of the same name are replaced.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.timestamp('next_monitor_at', { useTz: true });
  });
  for (const d of DEFAULT_DATABASE_TYPES) {
    const row = await knex('database_types').where({ name: d.name, builtin: true }).first('commands');
    if (!row) continue;
    const shipped = new Set(d.commands.map((c) => c.name));
    const kept = (row.commands as Array<{ name: string }>).filter((c) => !shipped.has(c.name));
    await knex('database_types').where({ name: d.name }).update({ commands: JSON.stringify([...d.commands, ...kept]) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.dropColumn('next_monitor_at');
  });
}
