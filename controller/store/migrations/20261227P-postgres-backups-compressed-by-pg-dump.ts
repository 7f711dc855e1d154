import type { Knex } from 'knex';
import { POSTGRES_BACKUP } from '../../catalog/default-types.js';

// The built-in PostgreSQL backup asked pg_dump for an uncompressed archive and the controller
// gzipped the stream; pg_dump now compresses on the database's server (-Z 1) and the archive is
// stored as written. Only the shipped command is replaced: a backup command an operator edited is
// theirs.
const UNCOMPRESSED = ['pg_dump', '-Fc', '-Z', '0', '-U', '{{user}}', '-d', '{{database}}'];

interface Command { name: string; command: string[] }

async function swap(knex: Knex, from: string[], to: string[]): Promise<void> {
  const row = await knex('database_types').where({ name: 'postgres', builtin: true }).first('commands');
  if (!row) return;
  const commands = (row.commands as Command[]).map((c) => (c.name === 'backup' && JSON.stringify(c.command) === JSON.stringify(from)
    ? { ...c, command: to } : c));
  await knex('database_types').where({ name: 'postgres', builtin: true }).update({ commands: JSON.stringify(commands) });
}

export async function up(knex: Knex): Promise<void> {
  await swap(knex, UNCOMPRESSED, POSTGRES_BACKUP);
}

export async function down(knex: Knex): Promise<void> {
  await swap(knex, POSTGRES_BACKUP, UNCOMPRESSED);
}
