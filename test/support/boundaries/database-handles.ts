import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Database code that imports nothing: a query built on the shared handle (`s.db('table')`, `db('table')`,
 * `s.db.transaction`, `db.raw`, `trx('table')`). dependency-cruiser sees only imports, so this
 * scan finds the knex use that travels in through the Services locator. controller/store/ is
 * where such code belongs.
 */
const HANDLE_USE = /\bdb\s*\(|\bdb\.(raw|transaction|fn|schema)\b|\btrx\s*\(|\btrx\.(raw|fn)\b/;

export interface HandleUse { file: string; line: number; text: string }

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

export function findDatabaseHandleUses(folders: string[], baseDir = process.cwd()): HandleUse[] {
  const found: HandleUse[] = [];
  for (const folder of folders) {
    for (const path of sourceFiles(join(baseDir, folder))) {
      const file = relative(baseDir, path);
      if (file.startsWith('controller/store/')) continue;
      readFileSync(path, 'utf8').split('\n').forEach((text, i) => {
        if (HANDLE_USE.test(text)) found.push({ file, line: i + 1, text: text.trim() });
      });
    }
  }
  return found;
}
