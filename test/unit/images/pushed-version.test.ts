import { expect } from 'chai';
import { judgePushedTag } from '../../../controller/images/pushed-version.js';

const image = { imageName: 'reg/acme/api', policy: { type: 'semver' as const, range: '^1.4' }, failedTag: null, failedDigest: null };
const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

describe('unit: a pushed tag judged like the update check', () => {
  it('deploys a newer tag inside the policy and a re-push of the current tag; refuses older, out of range, prereleases', () => {
    expect(judgePushedTag(image, '1.4.0', '1.4.1', null)).to.deep.equal({ deploy: true, why: 'newer-tag' });
    expect(judgePushedTag(image, '1.4.0', '1.4.0', D1)).to.deep.equal({ deploy: true, why: 'repushed-current' });
    for (const tag of ['1.3.9', '2.0.0', '1.5.0-rc.1', 'latest']) {
      const v = judgePushedTag(image, '1.4.0', tag, null);
      expect(v, tag).to.deep.include({ deploy: false, held: false });
      expect(v.deploy === false && v.reason, tag).to.contain('is not newer than 1.4.0');
    }
  });

  it('holds back the failed version: the same digest or an unknown one; a new digest of it passes', () => {
    const failed = { ...image, failedTag: '1.4.1', failedDigest: D1 };
    expect(judgePushedTag(failed, '1.4.0', '1.4.1', D1)).to.deep.include({ deploy: false, held: true });
    expect(judgePushedTag(failed, '1.4.0', '1.4.1', null)).to.deep.include({ deploy: false, held: true });
    expect(judgePushedTag(failed, '1.4.0', '1.4.1', D2)).to.deep.equal({ deploy: true, why: 'newer-tag' });
    expect(judgePushedTag(failed, '1.4.0', '1.4.2', null)).to.deep.equal({ deploy: true, why: 'newer-tag' });
  });
});
