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

  it('an alias tag of the current version (1.4 beside 1.4.0) is no update, whichever of the two runs', () => {
    const tags = ['1.3.0', '1.4', '1.4.0'];
    const digests = { '1.4': { now: 'sha256:a', before: 'sha256:a' }, '1.4.0': { now: 'sha256:a', before: 'sha256:a' } };
    for (const currentTag of ['1.4.0', '1.4']) {
      const p = planImageUpdate({ ...base, currentTag, tags, digests });
      expect(p, currentTag).to.deep.include({ latestTag: null, newTags: [], updateAvailable: false, deploy: null });
    }
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

  it('a re-push found while an auto-update runs is queued, and deployed by the check after the plan ends', () => {
    // 1.2.0 (digest c) is being deployed; meanwhile 1.2.0 is re-pushed (d)
    const inFlight = { tag: '1.2.0', digest: 'sha256:c' };
    const during = planImageUpdate({ ...base, inFlight, digests: { '1.1.0': { now: 'sha256:a', before: 'sha256:a' }, '1.2.0': { now: 'sha256:d', before: 'sha256:c' } } });
    expect(during.deploy).to.equal(null);
    expect(during.queued).to.deep.equal({ tag: '1.2.0', digest: 'sha256:d', why: 'newer-tag' });
    // a later check while the plan still runs: the digest no longer changes, the queue is kept
    const again = planImageUpdate({ ...base, inFlight, queued: during.queued, digests: { '1.1.0': { now: 'sha256:a', before: 'sha256:a' }, '1.2.0': { now: 'sha256:d', before: 'sha256:d' } } });
    expect(again).to.deep.include({ deploy: null, queued: during.queued });
    // the plan succeeded: 1.2.0 is current, nothing looks changed, the queued digest is deployed
    const after = planImageUpdate({ ...base, currentTag: '1.2.0', queued: during.queued, digests: { '1.2.0': { now: 'sha256:d', before: 'sha256:d' } } });
    expect(after.deploy).to.deep.equal({ tag: '1.2.0', digest: 'sha256:d', why: 'newer-tag' });
    expect(after.queued).to.equal(null);
  });

  it('a re-push of the current tag during a plan of the same tag is queued; the version in flight is not', () => {
    const tags = ['latest'];
    const inFlight = { tag: 'latest', digest: 'sha256:b' };
    const same = planImageUpdate({ ...base, currentTag: 'latest', tags, inFlight, digests: { latest: { now: 'sha256:b', before: 'sha256:b' } } });
    expect(same).to.deep.include({ deploy: null, queued: null });
    const repushed = planImageUpdate({ ...base, currentTag: 'latest', tags, inFlight, digests: { latest: { now: 'sha256:c', before: 'sha256:b' } } });
    expect(repushed.queued).to.deep.equal({ tag: 'latest', digest: 'sha256:c', why: 'digest-changed' });
    const ended = planImageUpdate({ ...base, currentTag: 'latest', tags, queued: repushed.queued, digests: { latest: { now: 'sha256:c', before: 'sha256:c' } } });
    expect(ended.deploy).to.deep.equal({ tag: 'latest', digest: 'sha256:c', why: 'digest-changed' });
  });

  it('a queued update is dropped when it is stale: re-pushed again, older than the current tag, or the failed version', () => {
    const queued = { tag: '1.2.0', digest: 'sha256:d', why: 'newer-tag' as const };
    const moved = planImageUpdate({ ...base, currentTag: '1.2.0', queued, digests: { '1.2.0': { now: 'sha256:e', before: 'sha256:e' } } });
    expect(moved.deploy).to.equal(null);
    const older = planImageUpdate({ ...base, currentTag: '1.3.0', tags: [...base.tags, '1.3.0'], queued, digests: { '1.2.0': { now: 'sha256:d' }, '1.3.0': { now: 'sha256:f', before: 'sha256:f' } } });
    expect(older.deploy).to.equal(null);
    const failed = planImageUpdate({ ...base, failed: { tag: '1.2.0', digest: 'sha256:d' }, queued, digests: { '1.2.0': { now: 'sha256:d' } } });
    expect(failed.deploy).to.equal(null);
    expect(failed.held).to.contain('1.2.0 failed');
  });
});
