import { expect } from 'chai';
import { isNewer, newestTag, newerTags, policyProblem, sortTags, versionOf } from '../../../controller/images/version-policy.js';

const tags = ['1.3.9', '1.4.0', '1.4.1', '1.5.0', '1.6.0-rc.1', '2.0.0', 'v2.1', 'latest', 'stable', 'main-3f2a'];

describe('unit: image version policy', () => {
  it('reads version-like tags and nothing else', () => {
    expect(versionOf('v1.4')!.version).to.equal('1.4.0');
    expect(versionOf('2')!.version).to.equal('2.0.0');
    expect(versionOf('1.6.0-rc.1')!.prerelease).to.deep.equal(['rc', 1]);
    for (const t of ['latest', 'stable', 'main-3f2a', '01.2', '1.2.3.4', 'v']) expect(versionOf(t), t).to.equal(null);
  });

  it('semver without a range: the newest release, prereleases left out', () => {
    expect(newestTag(tags, '1.4.0', { type: 'semver' })).to.equal('v2.1');
    expect(newerTags(tags, '1.4.0', { type: 'semver' })).to.deep.equal(['v2.1', '2.0.0', '1.5.0', '1.4.1']);
  });

  it('semver ranges: ^1.4 stays below 2, ~1.4 below 1.5', () => {
    expect(newestTag(tags, '1.4.0', { type: 'semver', range: '^1.4' })).to.equal('1.5.0');
    expect(newestTag(tags, '1.4.0', { type: 'semver', range: '~1.4' })).to.equal('1.4.1');
    expect(isNewer('1.3.9', '1.3.0', { type: 'semver', range: '^1.4' })).to.equal(false);
  });

  it('prereleases only when asked', () => {
    expect(isNewer('1.6.0-rc.1', '1.5.0', { type: 'semver' })).to.equal(false);
    expect(isNewer('1.6.0-rc.1', '1.5.0', { type: 'semver', includePrereleases: true })).to.equal(true);
    expect(newestTag(tags, '1.5.0', { type: 'semver', range: '^1.4', includePrereleases: true })).to.equal('1.6.0-rc.1');
  });

  it('minor and patch keep the current major (and minor)', () => {
    expect(newestTag(tags, '1.4.0', { type: 'minor' })).to.equal('1.5.0');
    expect(newestTag(tags, '1.4.0', { type: 'patch' })).to.equal('1.4.1');
    expect(newestTag(tags, '2.0.0', { type: 'minor' })).to.equal('v2.1');
  });

  it('regex: only matching tags, ordered by the captured number', () => {
    const builds = ['build-9', 'build-10', 'build-100-rc', 'release-11', 'latest'];
    expect(newestTag(builds, 'build-9', { type: 'regex', pattern: '^build-(\\d+)$' })).to.equal('build-10');
    expect(newestTag(tags, '1.4.0', { type: 'regex', pattern: '^1\\.4\\.\\d+$' })).to.equal('1.4.1');
  });

  it('non-version tags are never newer, and a non-version current tag has no newer version', () => {
    expect(isNewer('latest', '1.0.0')).to.equal(false);
    expect(isNewer('2.0.0', 'latest')).to.equal(false);
    expect(newestTag(tags, 'stable', { type: 'semver' })).to.equal(null);
    expect(newestTag(tags, '1.0.0', { type: 'digest' })).to.equal(null);
    expect(isNewer('1.4.0', '1.4.0')).to.equal(false);
  });

  it('alias tags of one version (1.4, v1.4, 1.4.0) are never newer than each other, under every policy', () => {
    const aliases = ['1.4', 'v1.4', '1.4.0', 'v1.4.0'];
    const policies = [undefined, { type: 'semver' as const }, { type: 'semver' as const, range: '^1.4' }, { type: 'minor' as const }, { type: 'patch' as const }];
    for (const policy of policies) {
      for (const a of aliases) {
        for (const b of aliases) expect(isNewer(a, b, policy), `${a} over ${b} (${JSON.stringify(policy)})`).to.equal(false);
      }
      expect(newestTag(['1.4', '1.4.0'], '1.4.0', policy), JSON.stringify(policy)).to.equal(null);
      expect(newestTag(['1.4', '1.4.0'], '1.4', policy), JSON.stringify(policy)).to.equal(null);
    }
    // an alias still loses to a real newer version
    expect(isNewer('1.4.1', '1.4')).to.equal(true);
  });

  it('sorts version tags newest first, then the others by name', () => {
    expect(sortTags(tags)).to.deep.equal(['v2.1', '2.0.0', '1.6.0-rc.1', '1.5.0', '1.4.1', '1.4.0', '1.3.9', 'latest', 'main-3f2a', 'stable']);
  });

  it('names a broken range or pattern', () => {
    expect(policyProblem({ type: 'semver', range: 'not a range ((' })).to.contain('not a semver range');
    expect(policyProblem({ type: 'regex', pattern: '(' })).to.contain('not a valid regular expression');
    expect(policyProblem({ type: 'semver', range: '^1.4' })).to.equal(null);
  });
});
