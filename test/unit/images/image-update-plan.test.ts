import { expect } from 'chai';
import { planImageUpdate } from '../../../reconcilers/image/plan.js';

const base = { currentTag: '1.1.0', policy: null, tags: ['1.0.0', '1.1.0', '1.2.0'], failed: null };

describe('unit: image update plan', () => {
  it('deploys the newest tag by policy', () => {
    const p = planImageUpdate({ ...base, digests: { '1.1.0': { now: 'sha256:a', before: 'sha256:a' }, '1.2.0': { now: 'sha256:c' } } });
    expect(p).to.deep.include({ latestTag: '1.2.0', updateAvailable: true, held: null });
    expect(p.deploy).to.deep.equal({ tag: '1.2.0', digest: 'sha256:c', why: 'newer-tag' });
  });

  it('a re-pushed current tag is an update; a first sighting is not', () => {
    const tags = ['latest'];
    const repushed = planImageUpdate({ ...base, currentTag: 'latest', tags, digests: { latest: { now: 'sha256:b', before: 'sha256:a' } } });
    expect(repushed.changedDigests).to.deep.equal([{ tag: 'latest', previous: 'sha256:a', digest: 'sha256:b' }]);
    expect(repushed.deploy).to.deep.equal({ tag: 'latest', digest: 'sha256:b', why: 'digest-changed' });
    const first = planImageUpdate({ ...base, currentTag: 'latest', tags, digests: { latest: { now: 'sha256:a' } } });
    expect(first).to.deep.include({ updateAvailable: false, deploy: null, changedDigests: [] });
  });

  it('holds back the version that failed until a newer one or a new digest of it appears', () => {
    const failed = { tag: '1.2.0', digest: 'sha256:c' };
    const held = planImageUpdate({ ...base, failed, digests: { '1.2.0': { now: 'sha256:c' } } });
    expect(held.deploy).to.equal(null);
    expect(held.held).to.contain('1.2.0 failed');
    expect(held.updateAvailable).to.equal(true);
    const rebuilt = planImageUpdate({ ...base, failed, digests: { '1.2.0': { now: 'sha256:d' } } });
    expect(rebuilt.deploy?.tag).to.equal('1.2.0');
    const newer = planImageUpdate({ ...base, tags: [...base.tags, '1.3.0'], failed, digests: { '1.3.0': { now: 'sha256:e' } } });
    expect(newer.deploy?.tag).to.equal('1.3.0');
  });

  it('a re-push of the current tag is deployed while a newer tag is held back', () => {
    const p = planImageUpdate({ ...base, failed: { tag: '1.2.0', digest: 'sha256:c' }, digests: { '1.1.0': { now: 'sha256:b2', before: 'sha256:b' }, '1.2.0': { now: 'sha256:c' } } });
    expect(p.deploy).to.deep.equal({ tag: '1.1.0', digest: 'sha256:b2', why: 'digest-changed' });
  });
});
