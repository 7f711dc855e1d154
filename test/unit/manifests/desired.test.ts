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
    const { objects, errors } = desiredStates(folder('{file: token.txt}'), 'r1', { origin: 'folder', env: {}, baseDir: dir });
    expect(errors).to.deep.equal([]);
    const secret = objects.find((o) => o.kind === 'Secret')!;
    expect(secret.fields.value).to.equal(secretDigest('from-file'));
    expect(secret.secretValues).to.deep.equal({ value: 'from-file' });
    expect(secret.source).to.include({ path: 's.yaml', revision: 'r1' });
  });

  it('reports an unset environment variable and an unreadable file at their line, without a value', () => {
    const missingEnv = desiredStates(folder('{env: NOPE}'), 'r1', { origin: 'folder', env: {}, baseDir: dir }).errors;
    expect(missingEnv).to.deep.equal([{ file: 's.yaml', line: 5, column: 14, path: 'spec/valueFrom', message: 'environment variable NOPE is not set on the controller' }]);
    const missingFile = desiredStates(folder('{file: nope.txt}'), 'r1', { origin: 'folder', env: {}, baseDir: dir }).errors;
    expect(missingFile[0].message).to.equal('cannot read file nope.txt');
    const noBase = desiredStates(folder('{file: token.txt}'), 'r1', { origin: 'folder', env: {}, baseDir: null }).errors;
    expect(noBase[0].message).to.match(/MANIFESTS_DIR/);
  });

  describe('what a manifest may read depends on where it comes from (reference-policy.ts)', () => {
    for (const origin of ['api', 'git'] as const) {
      it(`refuses valueFrom env and file from the ${origin}, at the line, without reading either`, () => {
        const env = desiredStates(folder('{env: SECRETS_KEY}'), 'r1', { origin, env: { SECRETS_KEY: 'the-controller-key' }, baseDir: dir });
        expect(env.errors).to.have.length(1);
        expect(env.errors[0]).to.include({ file: 's.yaml', line: 5, path: 'spec/valueFrom' });
        expect(env.errors[0].message).to.match(/^valueFrom\.env: .*cannot read the controller's environment variables/);
        expect(JSON.stringify(env)).not.to.include('the-controller-key');
        const file = desiredStates(folder('{file: /etc/shadow}'), 'r1', { origin, env: {}, baseDir: null });
        expect(file.errors.map((e) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal(['s.yaml:5:spec/valueFrom']);
        expect(file.errors[0].message).to.match(/^valueFrom\.file: .*cannot read files on the controller's machine/);
        const relative = desiredStates(folder('{file: token.txt}'), 'r1', { origin, env: {}, baseDir: dir });
        expect(relative.errors[0].message).to.match(/^valueFrom\.file/);
        expect(JSON.stringify(relative)).not.to.include('from-file');
      });
    }

    it('reads a secretRef from the store, only in the manifest\'s own environment', () => {
      const stored: Record<string, string> = { 'prod/DB_PASSWORD': 'stored-pw', 'staging/ONLY_STAGING': 'other-env-pw' };
      const sources = { origin: 'git' as const, env: {}, baseDir: null, storedSecret: (e: string, k: string) => stored[`${e}/${k}`] };
      const ok = desiredStates(folder('{secretRef: DB_PASSWORD}'), 'r1', sources);
      expect(ok.errors).to.deep.equal([]);
      const secret = ok.objects.find((o) => o.kind === 'Secret')!;
      expect(secret.fields.value).to.equal(secretDigest('stored-pw'));
      expect(secret.source!.fields).to.include('value');
      const other = desiredStates(folder('{secretRef: ONLY_STAGING}'), 'r1', sources);
      expect(other.errors.map((e) => `${e.file}:${e.line}:${e.path}`)).to.deep.equal(['s.yaml:5:spec/valueFrom/secretRef']);
      expect(other.errors[0].message).to.equal('valueFrom.secretRef: there is no Secret ONLY_STAGING in environment prod (a secretRef reads only a Secret of the manifest\'s own environment)');
      expect(JSON.stringify(other)).not.to.include('other-env-pw');
    });

    it('a secretRef may name a Secret the same apply writes; one naming itself is refused', () => {
      const manifests = loadManifests([
        { path: 'env.yaml', content: 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: prod}\nspec: {}\n' },
        { path: 'a.yaml', content: 'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: COPY, environment: prod}\nspec:\n  valueFrom: {secretRef: ORIGINAL}\n' },
        { path: 'b.yaml', content: 'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: ORIGINAL, environment: prod}\nspec:\n  valueFrom: {sops: "b.yaml#spec/value"}\n' },
        { path: 'c.yaml', content: 'apiVersion: stevedore/v1\nkind: Secret\nmetadata: {name: SELF, environment: prod}\nspec:\n  valueFrom: {secretRef: SELF}\n' },
      ]).manifests;
      const out = desiredStates(manifests, 'r1', { origin: 'git', env: {}, baseDir: null, sops: new Map([['b.yaml#spec/value', 'from-sops']]), storedSecret: () => 'stale' });
      expect(out.objects.find((o) => o.name === 'COPY')!.fields.value).to.equal(secretDigest('from-sops'));
      expect(out.errors.map((e) => `${e.file}:${e.path}: ${e.message}`)).to.deep.equal(['c.yaml:spec/valueFrom/secretRef: valueFrom.secretRef: the Secret SELF cannot take its value from itself']);
    });

    it('the watched folder still reads the controller\'s environment and files', () => {
      expect(desiredStates(folder('{env: X}'), 'r1', { origin: 'folder', env: { X: 'x' }, baseDir: null }).errors).to.deep.equal([]);
      expect(desiredStates(folder('{file: token.txt}'), 'r1', { origin: 'folder', env: {}, baseDir: dir }).errors).to.deep.equal([]);
    });
  });
});
