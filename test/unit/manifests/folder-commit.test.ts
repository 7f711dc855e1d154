import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobId, folderCommit, sameAsTree } from '../../../controller/manifests/folder-commit.js';
import { readManifestDir } from '../../../controller/manifests/read-dir.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, env: { PATH: process.env.PATH!, HOME: cwd } }).toString().trim();

describe('folderCommit: a folder is named after a commit only when it is that commit', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'folder-commit-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('blobId is git hash-object', () => {
    writeFileSync(join(root, 'x'), 'kind: Var\n');
    expect(blobId('kind: Var\n')).to.equal(execFileSync('git', ['hash-object', join(root, 'x')]).toString().trim());
  });

  it('sameAsTree wants the same YAML paths with the same blobs', () => {
    const files = [{ path: 'a.yaml', content: 'a' }];
    expect(sameAsTree(files, [{ path: 'a.yaml', object: blobId('a') }, { path: 'README.md', object: 'x' }])).to.equal(true);
    expect(sameAsTree(files, [{ path: 'a.yaml', object: blobId('b') }])).to.equal(false);
    expect(sameAsTree(files, [{ path: 'a.yaml', object: blobId('a') }, { path: 'b.yml', object: 'x' }])).to.equal(false);
  });

  it('a subfolder of a checkout as committed is named by HEAD; edited or with a new file it is not', async () => {
    git(root, 'init', '-q');
    mkdirSync(join(root, 'manifests'));
    writeFileSync(join(root, 'manifests', 'a.yaml'), 'a: 1\n');
    writeFileSync(join(root, 'other.yaml'), 'outside the folder\n');
    git(root, 'add', '.');
    git(root, 'commit', '-qm', 'one');
    const head = git(root, 'rev-parse', 'HEAD');
    const dir = join(root, 'manifests');
    expect(await folderCommit(dir, await readManifestDir(dir))).to.equal(head);
    writeFileSync(join(dir, 'b.yaml'), 'b: 1\n');
    expect(await folderCommit(dir, await readManifestDir(dir)), 'an untracked file').to.equal(null);
    rmSync(join(dir, 'b.yaml'));
    writeFileSync(join(dir, 'a.yaml'), 'a: 2\n');
    expect(await folderCommit(dir, await readManifestDir(dir)), 'an edited file').to.equal(null);
  });

  it('answers null outside a Git work tree', async () => {
    writeFileSync(join(root, 'a.yaml'), 'a: 1\n');
    expect(await folderCommit(root, await readManifestDir(root))).to.equal(null);
  });
});
