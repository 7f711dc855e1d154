// bin/server-bundle.js on a small project of its own in a temporary folder: the bundle is built
// into another folder and run from there by a real `node`, so every claim is about what Node
// loads, not about esbuild's output text.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { isFresh } from '../../bin/server-bundle.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/server-bundle.js', import.meta.url).pathname;

describe('server bundle (bin/server-bundle.js)', function () {
  this.timeout(30_000);
  let project: string;
  let bundle: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    fs.writeFileSync(path.join(project, file), text);
  };
  const entry = "export { report } from './src/main.ts';";
  /** Builds in a plain `node`, as bin/stevedore.js runs (import.meta.resolve is Node's own there, not the test loader's). */
  const buildBundle = async () => {
    const script = `import { buildBundle } from ${JSON.stringify(BIN)}; await buildBundle(${JSON.stringify(bundle)}, ${JSON.stringify({ root: project, entry })});`;
    await run(process.execPath, ['--input-type=module', '-e', script]);
  };
  /** Runs the bundle in a fresh process and returns what its report() printed. */
  const runBundle = async () => {
    const script = `const { report } = await import(${JSON.stringify('file://' + bundle)}); console.log(JSON.stringify(await report()));`;
    return JSON.parse((await run(process.execPath, ['--input-type=module', '-e', script])).stdout);
  };

  beforeEach(() => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-src-'));
    bundle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-out-')), 'server.mjs');
    write('src/main.ts', [
      "import { readFileSync } from 'node:fs';",
      "import YAML from 'yaml';", // a package of the real project: imported by the file Node resolves it to
      "import { twice } from './lib/twice.js';",
      'const note = (): string => readFileSync(new URL(\'./note.txt\', import.meta.url), \'utf8\');',
      'const part = async (file: string) => (await import(`./parts/${file}`)) as { name: string };', // as the migrator loads a migration
      'export async function report() {',
      "  return { yaml: YAML.stringify({ n: twice(2) }).trim(), note: note(), part: (await part('a.ts')).name, url: import.meta.url };",
      '}',
    ].join('\n'));
    write('src/lib/twice.ts', 'export const twice = (n: number): number => n * 2;');
    write('src/note.txt', 'beside the source');
    write('src/parts/a.ts', "export const name = 'a';");
  });

  afterEach(() => {
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
  });

  it('runs from another folder: packages resolved, relative imports bundled, import.meta.url still the source file', async () => {
    await buildBundle();
    const out = await runBundle();
    expect(out).to.deep.equal({ yaml: 'n: 4', note: 'beside the source', part: 'a', url: `file://${path.join(project, 'src/main.ts')}` });
    expect(fs.existsSync(`${bundle}.map`)).to.equal(true);
  });

  it('is fresh after a build, and stale once a source is edited', async () => {
    expect(isFresh(bundle)).to.equal(false);
    await buildBundle();
    expect(isFresh(bundle)).to.equal(true);
    write('src/lib/twice.ts', 'export const twice = (n: number): number => n * 3;');
    expect(isFresh(bundle)).to.equal(false);
    await buildBundle();
    expect((await runBundle()).yaml).to.equal('n: 6');
  });

  it('is stale once a file is added beside a source (a new migration reached only by a glob import)', async () => {
    await buildBundle();
    write('src/parts/b.ts', "export const name = 'b';");
    expect(isFresh(bundle)).to.equal(false);
  });

  it('is stale when the bundle or its stamps are gone', async () => {
    await buildBundle();
    fs.rmSync(`${bundle}.inputs.json`);
    expect(isFresh(bundle)).to.equal(false);
    await buildBundle();
    fs.rmSync(bundle);
    expect(isFresh(bundle)).to.equal(false);
  });

  it('a stale bundle in a folder this user may not write is an error that says what to run', async () => {
    // a real unprivileged user (nobody) against a folder owned by root: no permission is mocked
    fs.chmodSync(path.dirname(bundle), 0o755);
    const script = `import { serverBundle } from ${JSON.stringify(BIN)}; await serverBundle(${JSON.stringify(bundle)});`;
    const err = await run(process.execPath, ['--input-type=module', '-e', script], { uid: 65534, gid: 65534, cwd: '/' })
      .then(() => undefined, (e: { stderr: string }) => e);
    expect(err?.stderr).to.match(/may not write it \(EACCES\): run `node bin\/stevedore.js build`/);
    expect(fs.existsSync(bundle)).to.equal(false);
  });
});
