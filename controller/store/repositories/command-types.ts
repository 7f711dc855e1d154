import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { TypeCommand, TypeDefinition } from '../../catalog/default-types.js';

/** A row of service_types or database_types (same shape; database types add a default port). */
export interface CommandTypeRow {
  id: string;
  name: string;
  description: string | null;
  defaultImage: string | null;
  defaultPort?: number | null;
  commands: TypeCommand[];
  builtin: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type CommandTypeSpec = Partial<Pick<CommandTypeRow, 'name' | 'description' | 'defaultImage' | 'defaultPort' | 'commands'>>;

/** Service types and database types with their predefined commands. */
export class CommandTypesRepository extends BaseRepository<CommandTypeRow> {
  constructor(db: Knex, table: 'service_types' | 'database_types') {
    super(db, table, { [`${table}_name_unique`]: 'A type with this name already exists' });
  }

  all(trx?: Knex.Transaction): Promise<CommandTypeRow[]> {
    return this.q(trx).orderBy('name') as Promise<CommandTypeRow[]>;
  }

  findByName(name: string, trx?: Knex.Transaction) {
    return this.findOne({ name }, trx);
  }

  create(spec: CommandTypeSpec, trx?: Knex.Transaction) {
    return this.insert(this.columns(spec), trx);
  }

  change(id: string, spec: CommandTypeSpec, trx?: Knex.Transaction) {
    return this.update(id, this.columns(spec), trx);
  }

  /** Puts every default type back as shipped (custom types are left alone); returns how many. */
  async resetDefaults(defaults: TypeDefinition[], trx?: Knex.Transaction): Promise<number> {
    for (const d of defaults) {
      const values = {
        name: d.name, description: d.description, defaultImage: d.defaultImage ?? null,
        ...(this.table === 'database_types' && { defaultPort: d.defaultPort ?? null }),
        commands: JSON.stringify(d.commands), builtin: true,
      };
      await this.q(trx).insert(values as never).onConflict('name').merge({ ...values, updatedAt: this.db.fn.now() } as never);
    }
    return defaults.length;
  }

  /** Adds a shipped type unless one of that name exists; true when it was added. */
  async insertShippedIfMissing(d: TypeDefinition, trx?: Knex.Transaction): Promise<boolean> {
    const rows = await this.q(trx).insert({
      name: d.name, description: d.description, defaultImage: d.defaultImage ?? null,
      ...(this.table === 'database_types' && { defaultPort: d.defaultPort ?? null }),
      commands: JSON.stringify(d.commands), builtin: true,
    } as never).onConflict('name').ignore().returning('id');
    return rows.length > 0;
  }

  /** Puts the commands in the order of `names` (a permutation of the current command names). */
  async reorderCommands(row: CommandTypeRow, names: string[], trx?: Knex.Transaction) {
    const byName = new Map(row.commands.map((c) => [c.name, c]));
    return this.update(row.id, { commands: JSON.stringify(names.map((n) => byName.get(n)!)) } as never, trx);
  }

  private columns(spec: CommandTypeSpec): Partial<CommandTypeRow> {
    const out: Record<string, unknown> = { ...spec };
    if (spec.commands) out.commands = JSON.stringify(spec.commands);
    return out as Partial<CommandTypeRow>;
  }
}

export function toCommandType(t: CommandTypeRow) {
  return {
    id: t.id, name: t.name, description: t.description, defaultImage: t.defaultImage,
    ...(t.defaultPort !== undefined && { defaultPort: t.defaultPort }),
    commands: t.commands, builtin: t.builtin, createdAt: t.createdAt, updatedAt: t.updatedAt,
  };
}
