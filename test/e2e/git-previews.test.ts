// Preview environments per pull request on the fleet (docs/git-sources.md#previews), with a real Git
// repository (file://, under GIT_FILE_ROOTS) whose pull request heads are refs/pull/<n>/head, as
// GitHub serves them, and GitHub's own pull_request payload, signed. The parent environment runs
// `shop` on s1 (labelled previews=yes) and s2 (unlabelled), publishing a host port and served by the
// ingress proxy at PARENT_HOST (plain HTTP), and `store` on s1 with a managed Volume; the
// commit-status receiver is a real HTTP server speaking GitHub's API. The proxy is reached as a
// client that resolved the host to the server (curl --resolve, as the ingress tests do).
import { expect } from 'chai';
import crypto from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { loadFleet, privateKeyOf, serverExec, type Fleet } from '../fleet/fleet.js';
import { createRepo, type TestRepo } from '../support/git-repo.js';
import { Receiver } from '../support/receiver.js';
import { until } from '../support/until.js';
import { launchBrowser } from '../support/browser.js';
import { signIn } from '../support/sign-in.js';
import { caddyImage, curl } from './ingress/ingress-world.js';

const SECRET = 'codehost-secret-for-previews';
const ALLOWED_VALUE = 'postgres://preview-may-read-this';
const FORBIDDEN_VALUE = 'sk_live_never-in-a-preview-9f8e7d';
const HOST_PORT = 18437;
const PARENT_HOST = 'shop.preview-parent.test';
const previewHostOf = (number: number) => `pr-${number}.preview.test`;

describe('preview environments per pull request on the fleet', function () {
  this.timeout(300_000);
  let fleet: Fleet;
  let svc: TestService;
  let admin: HttpClient;
  let env: { id: string; name: string };
  let repo: TestRepo;
  let rx: Receiver;
  let parentContainers: Record<string, string>;
  /** The preview environments made, for the clean-up of what a failing test leaves on the servers. */
  const previewEnvIds: string[] = [];
  const image = () => `${fleet.registry.address}/stevedore-test/web`;

  const servers = () => `apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: web-1, environment: ${env.name}}\n`
    + `spec: {hostname: ${fleet.servers[0]!.host}, sshPort: ${fleet.servers[0]!.port}, sshUser: ${fleet.servers[0]!.user}, labels: {previews: "yes"}}\n---\n`
    + `apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: web-2, environment: ${env.name}}\n`
    + `spec: {hostname: ${fleet.servers[1]!.host}, sshPort: ${fleet.servers[1]!.port}, sshUser: ${fleet.servers[1]!.user}}\n`;
  const files = (tag: string, envYaml = '    DB_URL: "${DB_URL}"\n') => ({
    'servers.yaml': servers(),
    'image.yaml': `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env.name}}\nspec: {imageName: ${image()}}\n`,
    'service.yaml': `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: shop, environment: ${env.name}}\nspec:\n  image: web\n  imageTag: ${tag}\n`
      + `  ports: ["${HOST_PORT}:80"]\n  ingress: {hosts: [${PARENT_HOST}], port: 80, tls: "off"}\n  env:\n${envYaml}  deployments:\n    - server: web-1\n    - server: web-2\n`,
    'store.yaml': `apiVersion: stevedore/v1\nkind: Volume\nmetadata: {name: data, environment: ${env.name}}\nspec: {server: web-1}\n---\n`
      + `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: store, environment: ${env.name}}\nspec:\n  image: web\n  imageTag: v1\n`
      + '  volumes: [{volume: data, mount: /data}]\n  deployments:\n    - server: web-1\n',
  });
  const hub = (raw: string) => `sha256=${crypto.createHmac('sha256', SECRET).update(raw).digest('hex')}`;
  /** GitHub's pull_request payload (the fields Stevedore reads and a few around them). */
  const payload = (action: string, number: number, sha: string, branch: string) => JSON.stringify({
    action, number,
    pull_request: {
      number, state: action === 'closed' ? 'closed' : 'open', title: `PR ${number}`, merged: false,
      head: { ref: branch, sha, repo: { full_name: 'acme/shop', clone_url: repo.url } },
      base: { ref: 'main', sha: '0'.repeat(40), repo: { full_name: 'acme/shop', clone_url: repo.url } },
    },
    repository: { full_name: 'acme/shop', clone_url: repo.url, default_branch: 'main' },
    sender: { login: 'contributor' },
  });
  const webhook = (raw: string, signature = hub(raw)) => svc.http.post('/api/webhooks/git', undefined, {
    raw, token: null, headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': signature },
  });
  /** Commits on a branch and publishes it as pull request `number`'s head, as GitHub does. */
  const pushPr = (number: number, branch: string, f: Record<string, string | null>, message: string) => {
    const sha = repo.commit(f, message, branch);
    repo.git('push', '-q', '-f', 'origin', `HEAD:refs/pull/${number}/head`);
    return sha;
  };
  const previews = async () => (await admin.get(`/api/environments/${env.id}/previews`)).body.items as any[];
  const previewOf = (number: number, pred: (p: any) => boolean, what: string) => until(what, async () => {
    const p = (await previews()).find((x) => x.number === number);
    return p && pred(p) && p;
  }, { timeoutMs: 150_000, everyMs: 300 });
  const ip = (server: string) => fleet.servers.find((x) => x.name === server)!.host;
  /** GET / of `host` through the ingress proxy of `server`. */
  const viaProxy = (server: string, host: string) => curl(ip(server), `http://${host}/`);
  const dockerVolumes = async (server: string) => (await serverExec(server, ['docker', 'volume', 'ls', '--format', '{{.Name}}'])).split('\n').filter(Boolean);
  const inspect = async (server: string, name: string) => JSON.parse(await serverExec(server, ['docker', 'inspect', name]))[0];
  const labelled = async (server: string, envId: string) =>
    (await serverExec(server, ['docker', 'ps', '-a', '--filter', `label=stevedore.environment-id=${envId}`, '--format', '{{.Names}}'])).split('\n').filter(Boolean);
  const statuses = (sha: string) => rx.requests.filter((r) => r.method === 'POST' && r.path === `/repos/acme/shop/statuses/${sha}` && r.json.context === `stevedore/preview/${env.name}`);
  const parentsUntouched = async () => {
    for (const s of ['s1', 's2']) {
      const c = await inspect(s, 'shop');
      expect(`${c.Id} ${c.State.StartedAt}`, `the parent's container on ${s}`).to.equal(parentContainers[s]);
    }
  };

  before(async () => {
    fleet = loadFleet();
    svc = await startTestService({ SCHEDULER_GIT_POLL_SEC: '1', CODEHOST_WEBHOOK_SECRET: SECRET, INGRESS_PROXY_IMAGE: await caddyImage() });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    expect((await admin.put(`/api/environments/${env.id}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) })).status).to.equal(200);
    for (const [key, value] of [['DB_URL', ALLOWED_VALUE], ['STRIPE_KEY', FORBIDDEN_VALUE]]) {
      expect((await admin.post(`/api/environments/${env.id}/secrets`, { key, value })).status).to.equal(201);
    }
    repo = createRepo('acme/shop');
    rx = await new Receiver().start();
    repo.commit(files('v1'), 'shop v1');
    const put = await admin.put(`/api/environments/${env.id}/manifests-source`, {
      url: repo.url, ref: 'main', pollIntervalSec: 0, codeHost: { type: 'github', apiUrl: rx.url, token: 'ghp-previews' },
      previews: { pullRequests: true, serverSelector: { matchLabels: { previews: 'yes' } }, secrets: ['DB_URL'], hostTemplate: 'pr-{number}.preview.test', ttlHours: 48 },
    });
    expect(put.status, put.text).to.equal(200);
    const running = await until('the parent running on s1 and s2', async () => {
      const out = await Promise.all(['s1', 's2'].map((s) => serverExec(s, ['docker', 'ps', '--filter', 'name=^shop$', '--format', '{{.Names}} {{.Image}}'])));
      return out.every((o) => o.trim() === `shop ${image()}:v1`) && out;
    }, { timeoutMs: 150_000, everyMs: 500 });
    expect(running).to.have.length(2);
    for (const s of ['s1', 's2']) await until(`the parent's host through the proxy on ${s}`, async () => /web v1/.test((await viaProxy(s, PARENT_HOST)).body), { timeoutMs: 60_000, everyMs: 300 });
    parentContainers = {};
    for (const s of ['s1', 's2']) {
      const c = await inspect(s, 'shop');
      parentContainers[s] = `${c.Id} ${c.State.StartedAt}`;
    }
  });
  after(async () => {
    await svc?.stop();
    await rx?.stop();
    repo?.remove();
    for (const s of ['s1', 's2']) {
      await serverExec(s, ['sh', '-c', 'docker rm -f shop shop-pr-7 shop-pr-8 store store-pr-7 store-pr-8 stevedore-proxy 2>/dev/null; true']).catch(() => undefined);
      for (const id of [env?.id, ...previewEnvIds].filter(Boolean)) {
        await serverExec(s, ['sh', '-c', `docker volume ls -q | grep '^stevedore-${id}-' | xargs -r docker volume rm; true`]).catch(() => undefined);
      }
    }
  });

  it('an unsigned or badly signed pull_request delivery is refused and stores nothing', async () => {
    const raw = payload('opened', 7, 'a'.repeat(40), 'feature');
    expect((await webhook(raw, `sha256=${'0'.repeat(64)}`)).status).to.equal(401);
    const unsigned = await svc.http.post('/api/webhooks/git', undefined, { raw, token: null, headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request' } });
    expect(unsigned.status).to.equal(401);
    expect(await svc.services.previews.listAll()).to.deep.equal([]);
  });

  it('opened: a preview environment runs the pull request\'s tag on the labelled server only, beside the parent, untouched', async () => {
    const sha = pushPr(7, 'feature', files('v2'), 'shop v2 in a pull request');
    const r = await webhook(payload('opened', 7, sha, 'feature'));
    expect(r.status, r.text).to.equal(202);
    expect(r.body.previews).to.deep.equal([{ environmentId: env.id, environment: env.name, number: 7, previewEnvironment: `${env.name}-pr-7`, open: true, headSha: sha }]);
    // stored before the answer
    expect((await svc.services.previews.ofSourceNumber((await svc.services.gitSources.ofEnvironment(env.id))!.id, 7))?.headSha).to.equal(sha);

    const p = await previewOf(7, (x) => x.state === 'ready' || x.state === 'failed', 'preview #7 to settle');
    expect(p, JSON.stringify(p)).to.include({ state: 'ready', headSha: sha, appliedCommit: sha, branch: 'feature', environmentName: `${env.name}-pr-7`, url: 'https://pr-7.preview.test' });
    previewEnvIds.push(p.environmentId);
    const previewEnv = (await admin.get(`/api/environments/${p.environmentId}`)).body;
    expect(previewEnv.name).to.equal(`${env.name}-pr-7`);

    const c = await inspect('s1', 'shop-pr-7');
    expect(c.Config.Image).to.equal(`${image()}:v2`);
    expect(c.State.Running).to.equal(true);
    expect(c.Config.Labels['stevedore.environment-id']).to.equal(p.environmentId);
    expect(c.Config.Env, 'the listed secret, by reference').to.include(`DB_URL=${ALLOWED_VALUE}`);
    expect(Object.values(c.HostConfig.PortBindings ?? {}).flat(), 'no host port beside the parent\'s').to.deep.equal([]);
    expect(await labelled('s2', p.environmentId), 'the unlabelled server got nothing').to.deep.equal([]);
    expect((await serverExec('s2', ['docker', 'ps', '-a', '--filter', 'name=shop-pr-7', '--format', '{{.Names}}'])).trim()).to.equal('');
    await parentsUntouched();

    // the preview's host through the labelled server's proxy answers from the pull request's container, the parent's from the parent's
    await until('the preview\'s host routed on s1', async () => /web v2/.test((await viaProxy('s1', previewHostOf(7))).body), { timeoutMs: 60_000, everyMs: 300 });
    for (const s of ['s1', 's2']) expect((await viaProxy(s, PARENT_HOST)).body, `the parent's host on ${s}`).to.match(/web v1/);
    expect((await viaProxy('s2', previewHostOf(7))).code, 'the unlabelled server does not route the preview').to.equal(404);
    const proxies = (await serverExec('s1', ['docker', 'ps', '-a', '--filter', 'label=stevedore.proxy=true', '--format', '{{.Names}}'])).split('\n').filter(Boolean);
    expect(proxies, 'one proxy on the host, holding both environments\' routes').to.deep.equal(['stevedore-proxy']);

    // the preview's own managed volume, beside the parent's, mounted by its own container
    const volume = `stevedore-${p.environmentId}-data`;
    expect(await dockerVolumes('s1')).to.include.members([volume, `stevedore-${env.id}-data`]);
    const store = await inspect('s1', 'store-pr-7');
    expect(store.Mounts.map((m: { Name?: string }) => m.Name)).to.deep.equal([volume]);

    const list = await until('the success status of the head', () => statuses(sha).some((x) => x.json.state !== 'pending') && statuses(sha), { timeoutMs: 30_000 });
    expect(list.map((x) => x.json.state)).to.deep.equal(['pending', 'success']);
    expect(list[1]!.json.target_url).to.equal('https://pr-7.preview.test');
    expect(list[1]!.headers.authorization).to.equal('Bearer ghp-previews');
  });

  it('synchronize: a push to the pull request updates its preview to the new head', async () => {
    const sha = pushPr(7, 'feature', files('v2', '    DB_URL: "${DB_URL}"\n    ROUND: "two"\n'), 'second round');
    expect((await webhook(payload('synchronize', 7, sha, 'feature'))).status).to.equal(202);
    const p = await previewOf(7, (x) => x.appliedCommit === sha && (x.state === 'ready' || x.state === 'failed'), 'preview #7 at the new head');
    expect(p.state, p.reason).to.equal('ready');
    const c = await inspect('s1', 'shop-pr-7');
    expect(c.Config.Env).to.include('ROUND=two');
    expect(c.Config.Image).to.equal(`${image()}:v2`);
    expect(await until('the new head\'s success', () => statuses(sha).some((x) => x.json.state === 'success'))).to.equal(true);
    await parentsUntouched();
  });

  it('the parent environment\'s page shows the preview, its state and URL', async () => {
    const browser = await launchBrowser();
    try {
      const page = await signIn(await (await browser.newContext({ bypassCSP: true })).newPage(), svc.url);
      await page.goto(`${svc.url}/env/${env.id}`);
      const row = page.getByTestId('previews').locator('tr[data-preview="7"]');
      await row.filter({ hasText: 'ready' }).waitFor({ timeout: 30_000 });
      const text = await row.innerText();
      expect(text).to.include(`${env.name}-pr-7`).and.include('https://pr-7.preview.test').and.include('feature');
      expect(await row.getByRole('link', { name: `${env.name}-pr-7` }).getAttribute('href')).to.match(/^\/env\/[0-9a-f-]{36}$/);
    } finally {
      await browser.close();
    }
  });

  it('a pull request naming a parent secret previews.secrets does not list fails, and the value appears nowhere', async () => {
    const sha = pushPr(8, 'greedy', files('v2', '    DB_URL: "${DB_URL}"\n    STOLEN: "${STRIPE_KEY}"\n'), 'read the payment key');
    expect((await webhook(payload('opened', 8, sha, 'greedy'))).status).to.equal(202);
    const p = await previewOf(8, (x) => x.state !== 'pending', 'preview #8 to settle');
    expect(p.state).to.equal('failed');
    expect(p.reason).to.contain('may not use the secret STRIPE_KEY');
    expect(await labelled('s1', p.environmentId)).to.deep.equal([]);
    const failure = await until('the failure status', () => statuses(sha).find((x) => x.json.state === 'failure'));
    expect(failure.json.description).to.contain('STRIPE_KEY');
    const everything = JSON.stringify([await previews(), rx.requests.map((x) => x.json), await svc.services.db('events').select('type', 'data'), svc.logs]);
    expect(everything).to.not.contain(FORBIDDEN_VALUE);
    await parentsUntouched();
    expect((await webhook(payload('closed', 8, sha, 'greedy'))).status).to.equal(202);
    await until('preview #8 gone', async () => !(await previews()).some((x) => x.number === 8), { timeoutMs: 60_000, everyMs: 300 });
  });

  it('closed: the preview\'s containers and environment are removed; the parent runs on', async () => {
    const p = (await previews()).find((x) => x.number === 7);
    const r = await webhook(payload('closed', 7, p.headSha, 'feature'));
    expect(r.status, r.text).to.equal(202);
    await until('preview #7 gone', async () => !(await previews()).some((x) => x.number === 7), { timeoutMs: 120_000, everyMs: 300 });
    expect((await admin.get(`/api/environments/${p.environmentId}`)).status).to.equal(404);
    for (const s of ['s1', 's2']) expect(await labelled(s, p.environmentId), `nothing of the preview on ${s}`).to.deep.equal([]);
    expect((await serverExec('s1', ['docker', 'ps', '-a', '--filter', 'name=shop-pr-7', '--format', '{{.Names}}'])).trim()).to.equal('');
    await parentsUntouched();
    // its host is no longer routed; the parent's still is; its volume went, the parent's stays
    await until('the preview\'s host unrouted on s1', async () => (await viaProxy('s1', previewHostOf(7))).code === 404, { timeoutMs: 60_000, everyMs: 300 });
    for (const s of ['s1', 's2']) expect((await viaProxy(s, PARENT_HOST)).body, `the parent's host on ${s}`).to.match(/web v1/);
    const volumes = await dockerVolumes('s1');
    expect(volumes.filter((v) => v.includes(p.environmentId)), 'the preview\'s volumes on s1').to.deep.equal([]);
    expect(volumes).to.include(`stevedore-${env.id}-data`);
  });
});
