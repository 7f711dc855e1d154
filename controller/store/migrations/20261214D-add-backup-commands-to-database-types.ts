import type { Knex } from 'knex';
import { DEFAULT_DATABASE_TYPES } from '../../catalog/default-types.js';

// The built-in database types gain backup, restore, check and ready commands (backups and restore
// drills run them). Commands an operator added are kept; shipped ones of the same name are replaced.
export async function up(knex: Knex): Promise<void> {
  for (const d of DEFAULT_DATABASE_TYPES) {
    const row = await knex('database_types').where({ name: d.name, builtin: true }).first('commands');
    if (!row) continue;
    const shipped = new Set(d.commands.map((c) => c.name));
    const kept = (row.commands as Array<{ name: string }>).filter((c) => !shipped.has(c.name));
    await knex('database_types').where({ name: d.name }).update({ commands: JSON.stringify([...d.commands, ...kept]) });
  }
}

export async function down(): Promise<void> {
  // the added commands are harmless to keep
}
