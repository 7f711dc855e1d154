import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * docs/security.md is the trust model: a table of every identity and source of input, what it may
 * read and cause, where that is enforced and which test proves it. A row's "tested by" cell names
 * test files (`test/…test.ts`) and, after each, the titles of the tests in it ("…"). This keeps the
 * claim true: every identity the model must cover has a row, every named file exists and every
 * named title is a test or suite title in that file.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(path.join(root, 'docs/security.md'), 'utf8');

/** The rows of the first table under the given heading, as arrays of cells. */
function tableUnder(heading: string): string[][] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/security.md has a "## ${heading}" section`).to.be.greaterThan(-1);
  const rest = doc.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  const lines = (end === -1 ? rest : rest.slice(0, end)).split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
}

/** `test/x.test.ts` "title" "title" … pairs of one cell. */
function testsNamed(cell: string): { file: string; titles: string[] }[] {
  const out: { file: string; titles: string[] }[] = [];
  const re = /`(test\/[^`]+\.test\.ts)`((?:\s*"[^"]+")*)/g;
  for (const m of cell.matchAll(re)) {
    out.push({ file: m[1], titles: [...m[2].matchAll(/"([^"]+)"/g)].map((t) => t[1]) });
  }
  return out;
}

/** Titles a test file declares: the first string argument of describe/it/context (any quote). */
function titlesIn(source: string): string[] {
  const re = /\b(?:describe|it|context|specify)(?:\.only|\.skip)?\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g;
  return [...source.matchAll(re)].map((m) => m[2].replace(/\\(.)/g, '$1'));
}

describe('docs/security.md, the trust model', () => {
  const rows = tableUnder('Who may do what');
  const identities = rows.map((r) => r[0].replace(/\*/g, '').toLowerCase());

  it('has a row for every identity and source of input', () => {
    const required = ['anonymous', 'viewer', 'operator', 'environment admin', 'unrestricted admin',
      'lowered admin', 'api token', 'service account', 'ci webhook', 'git committer',
      'local manifests folder', 'oidc identity'];
    for (const who of required) {
      expect(identities.some((i) => i.startsWith(who)), `a row for ${who} (rows: ${identities.join(', ')})`).to.equal(true);
    }
  });

  it('names, in every row, tests that exist', () => {
    for (const row of rows) {
      const named = testsNamed(row[row.length - 1]);
      expect(named, `row "${row[0]}" names at least one test file`).to.not.be.empty;
      for (const { file, titles } of named) {
        const full = path.join(root, file);
        expect(existsSync(full), `row "${row[0]}": ${file} exists`).to.equal(true);
        const declared = titlesIn(readFileSync(full, 'utf8'));
        for (const title of titles) {
          expect(declared.some((d) => d.includes(title)), `row "${row[0]}": ${file} has a test "${title}"`).to.equal(true);
        }
      }
    }
  });

  it('names the one module of each concern, and each exists', () => {
    const concerns = tableUnder('One home per concern');
    expect(concerns.length).to.be.greaterThan(3);
    for (const row of concerns) {
      const files = [...row[1].matchAll(/`((?:api|controller|reconcilers)\/[^`]+\.ts)`/g)].map((m) => m[1]);
      expect(files, `concern "${row[0]}" names its module`).to.not.be.empty;
      for (const f of files) expect(existsSync(path.join(root, f)), `${f} exists`).to.equal(true);
    }
  });

  it('reads test names from a cell the way the table writes them', () => {
    expect(testsNamed('`test/api/a.test.ts` "one" "two", `test/e2e/b.test.ts`')).to.deep.equal([
      { file: 'test/api/a.test.ts', titles: ['one', 'two'] },
      { file: 'test/e2e/b.test.ts', titles: [] },
    ]);
  });
});
