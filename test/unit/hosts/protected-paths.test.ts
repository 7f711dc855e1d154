import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertNotProtected } from '../../../controller/hosts/protected-paths.js';

describe('assertNotProtected', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'protected-'));
  const stateDir = path.join(root, 'state');
  const elsewhere = path.join(root, 'elsewhere');
  fs.mkdirSync(stateDir);
  fs.mkdirSync(elsewhere);
  fs.symlinkSync(stateDir, path.join(elsewhere, 'link'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('refuses the state dir itself, files in it and paths that climb into it', async () => {
    for (const p of [stateDir, path.join(stateDir, 'secrets.key'), path.join(elsewhere, '..', 'state', 'jwt.secret')]) {
      await assertNotProtected(p, [stateDir]).then(() => expect.fail(`${p} was allowed`), (e) => expect(e.code).to.equal('VALIDATION_ERROR'));
    }
  });

  it('refuses a path that reaches the state dir through a symlink', async () => {
    const viaLink = path.join(elsewhere, 'link', 'secrets.key');
    await assertNotProtected(viaLink, [stateDir]).then(() => expect.fail('allowed'), (e) => expect(e.code).to.equal('VALIDATION_ERROR'));
  });

  it('allows paths outside, including a sibling whose name starts the same', async () => {
    await assertNotProtected(path.join(elsewhere, 'app.conf'), [stateDir]);
    await assertNotProtected(stateDir + '-other/app.conf', [stateDir]);
  });
});
