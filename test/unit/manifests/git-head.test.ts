import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitHead } from '../../../controller/manifests/git-head.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('gitHead', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'git-head-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads a packed ref from a subfolder of the checkout', async () => {
    mkdirSync(join(root, '.git'));
    mkdirSync(join(root, 'manifests'));
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.git', 'packed-refs'), `# pack-refs with: peeled\n${A} refs/heads/main\n`);
    expect(await gitHead(join(root, 'manifests'))).to.equal(A);
  });

  it('follows a linked work tree to the shared refs and reads a detached HEAD', async () => {
    const common = join(root, 'main.git');
    const wtGit = join(common, 'worktrees', 'wt');
    mkdirSync(join(common, 'refs', 'heads'), { recursive: true });
    mkdirSync(wtGit, { recursive: true });
    mkdirSync(join(root, 'wt'));
    writeFileSync(join(root, 'wt', '.git'), `gitdir: ${wtGit}\n`);
    writeFileSync(join(wtGit, 'HEAD'), 'ref: refs/heads/feature\n');
    writeFileSync(join(wtGit, 'commondir'), '../..\n');
    writeFileSync(join(common, 'refs', 'heads', 'feature'), `${B}\n`);
    expect(await gitHead(join(root, 'wt'))).to.equal(B);
    writeFileSync(join(wtGit, 'HEAD'), `${A}\n`);
    expect(await gitHead(join(root, 'wt'))).to.equal(A);
  });

  it('answers null outside a git checkout', async () => {
    expect(await gitHead(root)).to.equal(null);
  });
});
