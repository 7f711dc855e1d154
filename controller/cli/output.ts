import YAML from 'yaml';
import { UsageError } from './cli-error.js';
import { formatTable } from './format-table.js';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function outputFormat(value: string | undefined): OutputFormat {
  const f = (value ?? 'table') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(f)) throw new UsageError(`-o ${value}: expected one of ${OUTPUT_FORMATS.join(', ')}`);
  return f;
}

/** A column: its header, the cell of an item, and whether only `-o wide` shows it. */
export interface Column { header: string; cell: (item: any) => string | number | null | undefined; wide?: boolean }

/** Items as a table (`table`, `wide`), as JSON or YAML (one object for a single item, else `{items}`). */
export function render(items: any[], columns: Column[], format: OutputFormat, single = false): string {
  if (format === 'json') return `${JSON.stringify(single ? items[0] : { items }, null, 2)}\n`;
  if (format === 'yaml') return YAML.stringify(single ? items[0] : { items });
  const shown = columns.filter((c) => format === 'wide' || !c.wide);
  return formatTable(shown.map((c) => c.header), items.map((i) => shown.map((c) => c.cell(i))));
}
