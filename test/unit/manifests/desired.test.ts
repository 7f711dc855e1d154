import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desiredStates, secretDigest } from '../../../controller/manifests/desired.js';
import { loadManifests } from '../../../controller/manifests/load.js';

const folder = (secretSpec: string) => loadManifests([
  { path: 'env.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: prod}\nspec: {}\n' },
  { path: 's.yaml', content: `apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: TOKEN, environment: prod}\nspec:\n  valueFrom: ${secretSpec}\n` },
]).manifests;

describe('desired states from manifests', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'desired-'));
    writeFileSync(join(dir, 'token.txt'), 'from-file\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a secret from a file relative to the folder and keeps only its digest in the fields', () => {
    const { objects, errors } = desiredStates(folder('{file: token.txt}'), 'r1', { env: {}, baseDir: dir });
    expect(errors).to.deep.equal([]);
    const secret = objects.find((o) => o.kind === 'Secret')!;
    expect(secret.fields.value).to.equal(secretDigest('from-file'));
    expect(secret.secretValues).to.deep.equal({ value: 'from-file' });
    expect(secret.source).to.include({ path: 's.yaml', revision: 'r1' });
  });

  it('reports an unset environment variable and an unreadable file at their line, without a value', () => {
    const missingEnv = desiredStates(folder('{env: NOPE}'), 'r1', { env: {}, baseDir: dir }).errors;
    expect(missingEnv).to.deep.equal([{ file: 's.yaml', line: 5, column: 14, path: 'spec/valueFrom', message: 'environment variable NOPE is not set on the controller' }]);
    const missingFile = desiredStates(folder('{file: nope.txt}'), 'r1', { env: {}, baseDir: dir }).errors;
    expect(missingFile[0].message).to.equal('cannot read file nope.txt');
    const noBase = desiredStates(folder('{file: token.txt}'), 'r1', { env: {}, baseDir: null }).errors;
    expect(noBase[0].message).to.match(/MANIFESTS_DIR/);
  });
});
