import { expect } from 'chai';
import { FileCache } from '../../../controller/manifests/file-cache.js';
import { loadManifests, type LoadedFile } from '../../../controller/manifests/load.js';
import { formatError } from '../../../controller/manifests/types.js';

const env = 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: prod}\nspec: {}\n';
const image = (name: string, tag = '') => `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: ${name}, environment: prod}\nspec: {imageName: r/${name}${tag}}\n`;

describe('manifest file cache', () => {
  it('makes a value once per path and text, again when the text changes', () => {
    const cache = new FileCache<number>();
    let made = 0;
    const make = () => ++made;
    expect(cache.get('a.yaml', 'one', make)).to.equal(1);
    expect(cache.get('a.yaml', 'one', make)).to.equal(1);
    expect(cache.get('b.yaml', 'one', make)).to.equal(2); // same text, another file
    expect(cache.get('a.yaml', 'two', make)).to.equal(3);
    expect(cache.get('a.yaml', 'one', make)).to.equal(4); // only the last text of a path is kept
  });

  it('forgets the files no longer in the folder', () => {
    const cache = new FileCache<string>();
    cache.get('a.yaml', 'x', () => 'a');
    cache.get('b.yaml', 'x', () => 'b');
    cache.keepOnly(['b.yaml']);
    expect(cache.size).to.equal(1);
    expect(cache.get('a.yaml', 'x', () => 'again')).to.equal('again');
    expect(cache.get('b.yaml', 'x', () => 'again')).to.equal('b');
  });

  it('gives the same load as without a cache, and checks references across cached files', () => {
    const cache = new FileCache<LoadedFile>();
    const folder = [{ path: 'env.yaml', content: env }, { path: 'img.yaml', content: image('web') }];
    const cold = loadManifests(folder, undefined, cache);
    expect(cold.errors).to.deep.equal([]);
    // The same image in another file: a duplicate, though img.yaml itself comes from the cache.
    const dup = [...folder, { path: 'z.yaml', content: image('web') }];
    const warm = loadManifests(dup, undefined, cache);
    const plain = loadManifests(dup);
    expect(warm.errors.map(formatError)).to.deep.equal(plain.errors.map(formatError));
    expect(warm.errors.map(formatError)).to.deep.equal(["z.yaml:3:18: metadata/name: ContainerImage 'web' is already defined in img.yaml:1"]);
    expect(warm.contentHash).to.equal(plain.contentHash);
    // The environment file removed: every cached document that names it is refused again.
    const orphaned = loadManifests(folder.slice(1), undefined, cache);
    expect(orphaned.errors.map((e) => e.message)).to.deep.equal(["unknown Environment 'prod'"]);
  });

  it('keeps refusing a folder whose unchanged file is broken, while another file is saved', () => {
    const cache = new FileCache<LoadedFile>();
    const broken = { path: 'bad.yaml', content: 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: A, environment: prod}\nspec: {value: [1}\n' };
    const first = loadManifests([{ path: 'env.yaml', content: env }, broken, { path: 'img.yaml', content: image('web') }], undefined, cache);
    const second = loadManifests([{ path: 'env.yaml', content: env }, broken, { path: 'img.yaml', content: image('web', '-2') }], undefined, cache);
    expect(first.errors).to.have.length.greaterThan(0);
    expect(second.errors.map(formatError)).to.deep.equal(first.errors.map(formatError));
    expect(second.manifests.find((m) => m.kind === 'ContainerImage')!.spec.imageName).to.equal('r/web-2');
  });

  it('expands ${env:} references on every load: a changed variable is a changed text', () => {
    const cache = new FileCache<LoadedFile>();
    const folder = [{ path: 'env.yaml', content: env }, { path: 'img.yaml', content: image('web', '${env:FILE_CACHE_TEST_SUFFIX}') }];
    process.env.FILE_CACHE_TEST_SUFFIX = '-a';
    try {
      expect(loadManifests(folder, undefined, cache).manifests[1].spec.imageName).to.equal('r/web-a');
      process.env.FILE_CACHE_TEST_SUFFIX = '-b';
      expect(loadManifests(folder, undefined, cache).manifests[1].spec.imageName).to.equal('r/web-b');
      delete process.env.FILE_CACHE_TEST_SUFFIX;
      const unset = loadManifests(folder, undefined, cache).errors.map(formatError);
      expect(unset[0]).to.equal('img.yaml:4:24: ${env:FILE_CACHE_TEST_SUFFIX}: environment variable FILE_CACHE_TEST_SUFFIX is not set');
      expect(unset).to.deep.equal(loadManifests(folder).errors.map(formatError));
    } finally {
      delete process.env.FILE_CACHE_TEST_SUFFIX;
    }
  });
});
