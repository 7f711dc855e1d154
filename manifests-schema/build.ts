/**
 * Writes manifests-schema/<kind>.schema.json and docs/manifests.md from the kind definitions.
 * Run `npx tsx manifests-schema/build.ts` after changing a kind; test/unit/manifests-schema/
 * build.test.ts fails while the generated files are stale.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KINDS, SCHEMAS, schemaFileName } from './index.js';
import { referenceMarkdown } from './reference-markdown.js';

export function generatedFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of KINDS) out[`manifests-schema/${schemaFileName(k.kind)}`] = `${JSON.stringify(SCHEMAS[k.kind], null, 2)}\n`;
  out['docs/manifests.md'] = referenceMarkdown();
  return out;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [path, text] of Object.entries(generatedFiles())) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
