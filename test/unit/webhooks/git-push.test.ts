import { expect } from 'chai';
import crypto from 'node:crypto';
import { eventOf, pushOf, refMatches, repositoryKey, verifyGitWebhook } from '../../../controller/webhooks/git-push.js';

const SECRET = 's3cret';
const raw = Buffer.from('{"ref":"refs/heads/main"}');
const hex = crypto.createHmac('sha256', SECRET).update(raw).digest('hex');

describe('git push webhooks', () => {
  it('GitHub: X-Hub-Signature-256 must be sha256=<hex HMAC> of the raw body', () => {
    expect(verifyGitWebhook(SECRET, raw, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hex}` })).to.deep.equal({ host: 'github' });
    expect(verifyGitWebhook(SECRET, raw, { 'x-hub-signature-256': hex })).to.have.property('refused');
    expect(verifyGitWebhook(SECRET, raw, { 'x-hub-signature-256': `sha256=${hex.toUpperCase()}` })).to.have.property('refused');
    expect(verifyGitWebhook(SECRET, Buffer.from('{}'), { 'x-hub-signature-256': `sha256=${hex}` })).to.have.property('refused');
    expect(verifyGitWebhook(SECRET, raw, {})).to.deep.equal({ refused: 'The X-Hub-Signature-256 header is missing' });
  });

  it('GitLab: X-Gitlab-Token is the secret itself; Gitea: X-Gitea-Signature is the hex HMAC', () => {
    expect(verifyGitWebhook(SECRET, raw, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET })).to.deep.equal({ host: 'gitlab' });
    expect(verifyGitWebhook(SECRET, raw, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 's3cre' })).to.have.property('refused');
    expect(verifyGitWebhook(SECRET, raw, { 'x-gitlab-event': 'Push Hook' })).to.have.property('refused');
    expect(verifyGitWebhook(SECRET, raw, { 'x-gitea-event': 'push', 'x-gitea-signature': hex })).to.deep.equal({ host: 'gitea' });
    expect(verifyGitWebhook(SECRET, raw, { 'x-gitea-event': 'push', 'x-gitea-signature': hex.slice(1) + '0' })).to.have.property('refused');
  });

  it('fails closed without a configured secret', () => {
    expect(verifyGitWebhook(null, raw, { 'x-gitlab-token': '' })).to.have.property('refused').that.includes('not configured');
    expect(verifyGitWebhook('', raw, { 'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', '').update(raw).digest('hex')}` })).to.have.property('refused');
  });

  it('names push events of each host', () => {
    expect(eventOf('github', { 'x-github-event': 'push' })).to.equal('push');
    expect(eventOf('gitlab', { 'x-gitlab-event': 'Tag Push Hook' })).to.equal('push');
    expect(eventOf('gitlab', { 'x-gitlab-event': 'Merge Request Hook' })).to.equal('Merge Request Hook');
    expect(eventOf('gitea', { 'x-gitea-event': 'push' })).to.equal('push');
  });

  it('reads the ref and every URL of the repository from GitHub and GitLab payloads', () => {
    expect(pushOf({ ref: 'refs/heads/main', repository: { clone_url: 'https://h/o/r.git', ssh_url: 'git@h:o/r.git', default_branch: 'main' } }))
      .to.deep.equal({ ref: 'refs/heads/main', repositoryUrls: ['https://h/o/r.git', 'git@h:o/r.git'], defaultBranch: 'main', commit: null });
    expect(pushOf({ ref: 'refs/tags/v1', project: { git_http_url: 'https://gl/o/r.git', default_branch: 'trunk' } }))
      .to.deep.equal({ ref: 'refs/tags/v1', repositoryUrls: ['https://gl/o/r.git'], defaultBranch: 'trunk', commit: null });
    const sha = 'c'.repeat(40);
    expect(pushOf({ ref: 'refs/heads/main', after: sha })?.commit, 'the pushed commit').to.equal(sha);
    expect(pushOf({ ref: 'refs/heads/main', after: '0'.repeat(40) })?.commit, 'a deleted branch names none').to.equal(null);
    expect(pushOf({ ref: 'refs/heads/main', after: 'not a sha; rm -rf' })?.commit).to.equal(null);
    expect(pushOf({ zen: 'x' })).to.equal(null);
  });

  it('one key for every form of a repository URL', () => {
    const key = 'github.com/org/repo';
    for (const u of ['https://github.com/org/repo.git', 'git@github.com:org/repo.git', 'ssh://git@github.com:22/org/repo', 'https://GitHub.com/Org/Repo/']) {
      expect(repositoryKey(u), u).to.equal(key);
    }
    expect(repositoryKey('file:///srv/repo.git')).to.equal('/srv/repo');
  });

  it('a source follows its branch or tag, or without a ref the default branch', () => {
    const push = { ref: 'refs/heads/main', repositoryUrls: [], defaultBranch: 'main', commit: null };
    expect(refMatches('main', push)).to.equal(true);
    expect(refMatches('refs/heads/main', push)).to.equal(true);
    expect(refMatches('dev', push)).to.equal(false);
    expect(refMatches(null, push)).to.equal(true);
    expect(refMatches(null, { ...push, ref: 'refs/heads/dev' })).to.equal(false);
    expect(refMatches('v1', { ...push, ref: 'refs/tags/v1' })).to.equal(true);
  });
});
