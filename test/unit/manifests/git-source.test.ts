import { expect } from 'chai';
import { parseGitUrl } from '../../../controller/manifests/git/git-url.js';
import { conditionsNow, passConditions, syncDue, syncStateOf } from '../../../controller/manifests/git/sync-state.js';
import { fetchRef, listTree } from '../../../controller/manifests/git/git-commands.js';
import { parseBlobBatch, parseTree } from '../../../controller/manifests/git/git-output.js';
import { commitStatusRequest, repositoryOf } from '../../../controller/manifests/git/commit-status.js';

const applied = { commit: 'a'.repeat(40), author: 'A', message: 'm', committedAt: '2026-01-01T00:00:00Z' };
const base = { leaseUntil: null, lastAttempt: null, appliedRevision: applied, appliedGeneration: 1, generation: 1, fetchedCommit: 'a'.repeat(40) };

describe('git sources: pure parts', () => {
  it('the sync state, as Argo CD shows an application', () => {
    expect(syncStateOf(base)).to.equal('Synced');
    expect(syncStateOf({ ...base, leaseUntil: new Date(Date.now() + 5000) })).to.equal('Syncing');
    expect(syncStateOf({ ...base, leaseUntil: new Date(Date.now() - 1) }), 'a dead sync: its lease ran out').to.equal('Synced');
    expect(syncStateOf({ ...base, lastAttempt: { at: '', trigger: 'poll', ok: false, commit: null, error: 'x', errors: [], plans: [] } })).to.equal('Failed');
    expect(syncStateOf({ ...base, appliedRevision: null })).to.equal('OutOfSync');
    expect(syncStateOf({ ...base, generation: 2 }), 'the source changed since').to.equal('OutOfSync');
    expect(syncStateOf({ ...base, fetchedCommit: 'b'.repeat(40) })).to.equal('OutOfSync');
  });

  it('is due when a sync was asked for, or on the poll interval (never with 0)', () => {
    const now = Date.now();
    const seen = { generation: 1, observedGeneration: 1 };
    expect(syncDue({ ...seen, pollIntervalSec: 60, lastFetchAt: new Date(now - 61_000) }, now)).to.equal(true);
    expect(syncDue({ ...seen, pollIntervalSec: 60, lastFetchAt: new Date(now - 10_000) }, now)).to.equal(false);
    expect(syncDue({ ...seen, pollIntervalSec: 0, lastFetchAt: new Date(now - 999_000) }, now)).to.equal(false);
    expect(syncDue({ generation: 2, observedGeneration: 1, pollIntervalSec: 0, lastFetchAt: new Date(now) }, now), 'a push asked for it').to.equal(true);
    expect(syncDue({ generation: 1, observedGeneration: null, pollIntervalSec: 0, lastFetchAt: null }, now), 'saved, never reconciled').to.equal(true);
  });

  it('conditions: one set per pass; Progressing as observed when read', () => {
    const t0 = new Date('2026-01-01T00:00:00Z');
    const ok = passConditions([], { ok: true, commit: 'a'.repeat(40), message: 'applied' }, t0);
    expect(ok.map((c) => [c.type, c.status, c.reason])).to.deep.equal([['Ready', 'True', 'Synced'], ['Progressing', 'False', 'Idle'], ['Degraded', 'False', 'AsDesired']]);
    const bad = passConditions(ok, { ok: false, reason: 'FetchFailed', error: 'fetch failed: no route' }, new Date('2026-01-01T00:01:00Z'));
    expect(bad.find((c) => c.type === 'Degraded')).to.include({ status: 'True', reason: 'FetchFailed', message: 'fetch failed: no route', lastTransitionTime: '2026-01-01T00:01:00.000Z' });
    expect(bad.find((c) => c.type === 'Progressing')!.lastTransitionTime, 'unchanged status keeps its time').to.equal(t0.toISOString());
    const row: { conditions: typeof ok; generation: number; observedGeneration: number; requestedAt: null; leaseUntil: Date | null } = { conditions: ok, generation: 3, observedGeneration: 3, requestedAt: null, leaseUntil: null };
    const progressing = (r: typeof row) => conditionsNow(r).find((c) => c.type === 'Progressing')!;
    expect(progressing(row).reason).to.equal('Idle');
    expect(progressing({ ...row, generation: 4 })).to.include({ status: 'True', reason: 'SyncRequested' });
    expect(progressing({ ...row, generation: 4, leaseUntil: new Date(Date.now() + 3000) })).to.include({ status: 'True', reason: 'Syncing' });
    expect(progressing({ ...row, leaseUntil: new Date(Date.now() - 1) }), 'a lease that ran out is no sync').to.include({ reason: 'Idle' });
  });

  it('reads URLs git may be handed and refuses the rest', () => {
    expect(parseGitUrl('https://github.com/o/r.git')).to.deep.include({ transport: 'https', host: 'github.com' });
    expect(parseGitUrl('git@github.com:o/r.git')).to.deep.include({ transport: 'ssh', host: 'github.com' });
    expect(parseGitUrl('ssh://git@h:2222/r.git')).to.deep.include({ transport: 'ssh', host: 'h:2222' });
    expect(parseGitUrl('file:///srv/r.git')).to.deep.include({ transport: 'file', host: null });
    for (const bad of ['-uhttps://x', 'ext::sh -c id', 'fd::3', 'https://u:p@h/r', 'ftp://h/r', 'file://host/r', '']) {
      expect(parseGitUrl(bad), bad).to.have.property('problem');
    }
  });

  it('fetch is one ref at depth 1, the URL after --end-of-options', () => {
    expect(fetchRef('https://h/r.git', 'main').join(' ')).to.equal('fetch --depth 1 --no-tags --no-recurse-submodules --quiet --end-of-options https://h/r.git main');
    expect(fetchRef('https://h/r.git', null).at(-1)).to.equal('HEAD');
    expect(listTree('abc', 'deploy/').join(' ')).to.equal('ls-tree -r -z -l --full-tree abc -- deploy/');
  });

  it('parses ls-tree -z -l and cat-file --batch', () => {
    const tree = parseTree(Buffer.from('100644 blob 1111 12\ta b.yaml\x00160000 commit 2222       -\tsub\x00'));
    expect(tree).to.deep.equal([
      { mode: '100644', type: 'blob', object: '1111', size: 12, path: 'a b.yaml' },
      { mode: '160000', type: 'commit', object: '2222', size: 0, path: 'sub' },
    ]);
    const blobs = parseBlobBatch(Buffer.from('1111 blob 3\nab\n\n2222 blob 0\n\n'));
    expect(blobs.get('1111')!.toString()).to.equal('ab\n');
    expect(blobs.get('2222')!.toString()).to.equal('');
  });
});

describe('commit statuses: pure parts', () => {
  it('owner/repo from every form of a source URL; none from a path of one segment', () => {
    for (const u of ['https://github.com/acme/deploy.git', 'git@github.com:acme/deploy.git', 'ssh://git@gitea.example:2222/acme/deploy', 'https://gitea.example/git/acme/deploy/']) {
      expect(repositoryOf(u), u).to.deep.equal({ owner: 'acme', repo: 'deploy' });
    }
    expect(repositoryOf('https://host/deploy.git')).to.equal(null);
    expect(repositoryOf('https://host/acme/re%20po'), 'only names a code host takes').to.equal(null);
  });

  it('GitHub and Gitea: the same path under each API root, each its token header; the description cut at 140', () => {
    const body = { state: 'pending' as const, description: 'x'.repeat(200), context: 'stevedore/prod' };
    const gh = commitStatusRequest({ type: 'github', apiUrl: 'https://api.github.com/' }, 'T', { owner: 'acme', repo: 'deploy' }, 'a'.repeat(40), body);
    expect(gh.url).to.equal(`https://api.github.com/repos/acme/deploy/statuses/${'a'.repeat(40)}`);
    expect(gh.headers.authorization).to.equal('Bearer T');
    expect(JSON.parse(gh.body).description).to.have.length(140);
    const gitea = commitStatusRequest({ type: 'gitea', apiUrl: 'https://gitea.example/api/v1' }, 'T', { owner: 'acme', repo: 'deploy' }, 'b'.repeat(40), body);
    expect(gitea.url).to.equal(`https://gitea.example/api/v1/repos/acme/deploy/statuses/${'b'.repeat(40)}`);
    expect(gitea.headers.authorization).to.equal('token T');
  });
});
