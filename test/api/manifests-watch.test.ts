import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { sleep, until } from '../support/until.js';
import { git } from '../support/git-repo.js';

let COMMIT = '';
const envDoc = 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: watched}\nspec: {}\n';
const varDoc = (i: number) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: V${i}, environment: watched}\nspec: {value: "${i}"}\n`;

describe('manifests watcher', () => {
  let svc: TestService;
  let admin: HttpClient;
  let dir: string;
  const applies = () => svc.logs.filter((l) => l.includes('"manifests: applied"')).length;

  before(async () => {
    // A git checkout as a pull leaves it: the folder is exactly its HEAD commit.
    dir = mkdtempSync(join(tmpdir(), 'manifests-watch-'));
    writeFileSync(join(dir, 'env.yaml'), envDoc);
    git(dir, 'init', '-q');
    git(dir, 'add', '.');
    git(dir, 'commit', '-qm', 'env');
    COMMIT = git(dir, 'rev-parse', 'HEAD');
    svc = await startTestService({ MANIFESTS_DIR: dir });
    admin = await bootstrapAdmin(svc.http);
  });
  after(async () => {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the folder at start-up and shows the git commit it follows in status and /health', async () => {
    const status = await admin.get('/api/manifests/status');
    expect(status.body).to.include({ dir, watching: true, prune: false });
    expect(status.body.lastApplied.revision.gitCommit).to.equal(COMMIT);
    expect(status.body.lastApplied.counts.create).to.equal(1);
    const health = await svc.http.get('/health');
    expect(health.body.manifests).to.include({ watching: true, lastAttemptOk: true, lastAttemptErrors: 0 });
    expect(health.body.manifests.lastAppliedRevision.gitCommit).to.equal(COMMIT);
  });

  it('twenty files written in one burst give a single apply', async () => {
    const before = applies();
    for (let i = 0; i < 20; i++) writeFileSync(join(dir, `var-${i}.yaml`), varDoc(i));
    await until('the twenty vars', async () => Number((await svc.services.db('vars').count({ n: '*' }))[0].n) >= 20, { timeoutMs: 15_000, everyMs: 100 });
    await sleep(600); // a second apply, if any, would land within the debounce window
    expect(applies() - before).to.equal(1);
    const status = await admin.get('/api/manifests/status');
    expect(status.body.lastApplied.counts).to.deep.equal({ create: 20, update: 0, delete: 0, orphan: 0 });
    expect(status.body.lastApplied.trigger).to.equal('watch');
    expect(status.body.lastApplied.revision.gitCommit, 'the folder is no longer its HEAD commit: named by its content').to.equal(null);
  });
});
