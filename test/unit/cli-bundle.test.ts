import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliBundle, isCliBundleFresh } from '../../controller/cli-dist/cli-artifacts.js';

describe('cli bundle cache', () => {
  let stateDir: string;
  before(() => { stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bundle-')); });
  after(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  it('records the sources it was built from, and is stale once one of them changed', async function () {
    this.timeout(60_000); // esbuild, about a second; longer on a loaded machine
    const bundle = await cliBundle(stateDir);
    expect(isCliBundleFresh(bundle.file)).to.equal(true);
    const inputs = JSON.parse(fs.readFileSync(`${bundle.file}.inputs.json`, 'utf8')) as Record<string, string>;
    const program = fileURLToPath(new URL('../../controller/cli/program.ts', import.meta.url));
    expect(Object.keys(inputs)).to.include(program);
    expect(Object.keys(inputs).some((f) => f.includes(`${path.sep}commander${path.sep}`))).to.equal(true);
    // what a later edit of program.ts looks like to the cache: another size and time
    fs.writeFileSync(`${bundle.file}.inputs.json`, JSON.stringify({ ...inputs, [program]: '1:1' }));
    expect(isCliBundleFresh(bundle.file)).to.equal(false);
  });
});
