// What the chaos harness runs its faults against, set up through the API only: a PostgreSQL pair
// (a primary and its streaming standby, test/support/postgres-pair.sh), two controller replicas
// on the pair's host list (docs/replicas.md), and on the fleet's servers:
// - environment chaos-<tag>: `web` (rolling, a secret in its env) on s1 s2, `canary` (a canary
//   rollout with an analysis) on s2 s3, `probe` (deployed after each fault to see the system
//   recovered) on s1 s2 s3;
// - chaos-<tag>-apply: `applied-<tag>` on s1, written by manifest applies (POST /api/manifests/apply);
// - chaos-<tag>-git: `gitweb-<tag>` on s3, written by Git pushes to a local repository (its Git source);
// - bystander-<tag>: a service on every server, deployed once and never touched again;
// - a hand-made container on every server (docker run, no Stevedore label).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '../../controller/store/knex.js';
import { serverExec, type Fleet } from '../../test/fleet/fleet.js';
import { TEST_ALLOW_LIST } from '../../test/support/outgoing-allow.js';
import { TEST_GIT_ROOT } from '../../test/support/git-file-roots.js';
import { createRepo, type TestRepo } from '../../test/support/git-repo.js';
import { PostgresPair, type PairUrls } from '../../test/support/postgres-pair.js';
import { SseClient } from '../../test/e2e/chaos/controller-child.js';
import { Api, AnswerLog } from './api.js';
import { Replica } from './replicas.js';

/** The service's own healthcheck: generous, so a loaded machine's slow `docker exec` is not a failed rollout. */
export const HEALTH_CHECK = { test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 30, retries: 3 };

export interface Ref { id: string; name: string }

export interface ChaosWorld {
  fleet: Fleet;
  tag: string;
  pair: PostgresPair;
  urls: PairUrls;
  replicas: Replica[];
  answers: AnswerLog;
  /** A client of the replica, as the admin. */
  api(replica: Replica): Api;
  token: string;
  /** The harness's own view of the store (through the host list: it follows failovers too). */
  db: Knex;
  envs: { main: Ref; apply: Ref; git: Ref; bystander: Ref };
  services: { web: Ref; canary: Ref; probe: Ref; bystander: Ref; applied: Ref; gitweb: Ref };
  repo: TestRepo;
  /** Every secret value the run made: none may appear in a replica's log. */
  secrets: string[];
  sse: SseClient[];
  /** The highest event id before the SSE clients connected. */
  firstEventId: number;
  /** Containers no plan may touch: another environment's and hand-made ones. */
  untouchable: Array<{ server: string; name: string; why: string }>;
  stateDirs: string[];
}

const randomHex = (n: number) => crypto.randomBytes(n).toString('hex');

function must<T>(what: string, res: { status: number; body: T; text: string }, ...ok: number[]): T {
  if (!(ok.length ? ok : [200, 201]).includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

export function applyFiles(w: Pick<ChaosWorld, 'fleet' | 'envs' | 'tag'>, tag: string, n: number) {
  const env = w.envs.apply.name;
  const image = w.fleet.images.webV1.replace(/:v1$/, '');
  return [
    { path: 'image.yaml', content: `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env}}\nspec: {imageName: ${image}}\n` },
    {
      path: 'service.yaml',
      content: `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: applied-${w.tag}, environment: ${env}}\nspec:\n  image: web\n  imageTag: ${tag}\n`
        + `  env: {APPLY: "${n}"}\n  healthCheck: ${JSON.stringify(HEALTH_CHECK)}\n  deployments:\n    - server: s1\n`,
    },
  ];
}

export function gitFiles(w: Pick<ChaosWorld, 'fleet' | 'envs' | 'tag'>, tag: string, n: number): Record<string, string> {
  const env = w.envs.git.name;
  const image = w.fleet.images.webV1.replace(/:v1$/, '');
  return {
    'deploy/image.yaml': `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env}}\nspec: {imageName: ${image}}\n`,
    'deploy/service.yaml': `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: gitweb-${w.tag}, environment: ${env}}\nspec:\n  image: web\n  imageTag: ${tag}\n`
      + `  env: {PUSH: "${n}"}\n  healthCheck: ${JSON.stringify(HEALTH_CHECK)}\n  deployments:\n    - server: s3\n`,
  };
}

export async function startWorld(fleet: Fleet, log: (line: string) => void): Promise<ChaosWorld> {
  const tag = randomHex(3);
  const pair = new PostgresPair();
  const urls = await pair.up();
  log(`PostgreSQL pair up: ${urls.hostList}`);
  const repo = createRepo(`chaos-${tag}`);
  const stateDirs: string[] = [];
  const env = {
    DATABASE_URL: urls.hostList, SECRETS_KEY: crypto.randomBytes(32).toString('base64'), JWT_SECRET: randomHex(32),
    PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', PASSWORD_HASH_COST: '10',
    OUTGOING_ALLOW_LIST: TEST_ALLOW_LIST, GIT_FILE_ROOTS: TEST_GIT_ROOT,
    SCHEDULER_HEALTH_CHECK_SEC: '5', SCHEDULER_DRIFT_CHECK_SEC: '10', SCHEDULER_GIT_POLL_SEC: '5',
    SHUTDOWN_GRACE_SEC: '5', LEADER_RETRY_MS: '1000',
  };
  const replicas = ['a', 'b'].map((name) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `stevedore-chaos-${name}-`));
    stateDirs.push(dir);
    return new Replica(name, { ...env, STEVEDORE_STATE_DIR: dir });
  });
  // one after the other: the first migrates the empty database
  for (const r of replicas) await r.start();
  log(`replicas up: ${replicas.map((r) => `${r.name} ${r.url}`).join(', ')}`);

  const answers = new AnswerLog();
  let token: string | null = null;
  const api = (r: Replica) => new Api(r, () => token, answers);
  const a = api(replicas[0]!);
  const password = `chaos-password-${randomHex(8)}`;
  must('register', await a.post('/api/auth/register', { email: 'chaos@example.test', password, name: 'Chaos' }));
  token = must<{ token: string }>('login', await a.post('/api/auth/login', { email: 'chaos@example.test', password })).token;
  const privateKey = fs.readFileSync(fleet.servers[0]!.privateKeyPath, 'utf8');
  // a slice of the key's body: the whole PEM never appears in one log line, a part of it would
  const keyBody = privateKey.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
  const secrets = [password, token!, keyBody.slice(20, 60), env.SECRETS_KEY];

  const servers: Record<string, Record<string, string>> = {};
  const environment = async (name: string, on: string[]): Promise<Ref> => {
    const e = must<Ref>(`environment ${name}`, await a.post('/api/environments', { name }));
    must('ssh key', await a.put(`/api/environments/${e.id}/ssh-key`, { privateKey }));
    servers[e.id] = {};
    for (const f of fleet.servers.filter((s) => on.includes(s.name))) {
      const row = must<{ id: string }>(`server ${f.name}`, await a.post(`/api/environments/${e.id}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user }));
      servers[e.id]![f.name] = row.id;
    }
    return { id: e.id, name };
  };
  const all = fleet.servers.map((s) => s.name);
  const envs = {
    main: await environment(`chaos-${tag}`, all),
    apply: await environment(`chaos-${tag}-apply`, ['s1']),
    git: await environment(`chaos-${tag}-git`, ['s3']),
    bystander: await environment(`bystander-${tag}`, all),
  };
  const imageName = fleet.images.webV1.replace(/:v1$/, '');
  const images = new Map<string, string>();
  const service = async (envId: string, name: string, on: string[], extra: Record<string, unknown> = {}): Promise<Ref> => {
    if (!images.has(envId)) images.set(envId, must<{ id: string }>('image', await a.post(`/api/environments/${envId}/container-images`, { imageName })).id);
    const image = images.get(envId)!;
    const s = must<Ref>(`service ${name}`, await a.post(`/api/environments/${envId}/services`, { name, containerImageId: image, imageTag: 'v1', healthCheck: HEALTH_CHECK, ...extra }));
    for (const server of on) {
      must(`deployment ${name} on ${server}`, await a.post(`/api/services/${s.id}/deployments`, { serverId: servers[envId]![server], containerName: `${name}-${tag}-${server}` }));
    }
    return { id: s.id, name };
  };
  const apiKey = `chaos-secret-${randomHex(12)}`;
  secrets.push(apiKey);
  must('secret', await a.post(`/api/environments/${envs.main.id}/secrets`, { key: 'API_KEY', value: apiKey }));
  must('var', await a.post(`/api/environments/${envs.main.id}/vars`, { key: 'GREETING', value: 'chaos' }));
  const web = await service(envs.main.id, 'web', ['s1', 's2'], { env: { GREETING: '${GREETING}', API_KEY: '${API_KEY}' } });
  const canary = await service(envs.main.id, 'canary', ['s2', 's3'], {
    rollout: { strategy: 'canary', steps: [{ servers: 1 }, { pauseSec: 2 }], analysis: { healthChecks: true, maxRestarts: 0, durationSec: 3 } },
  });
  const probe = await service(envs.main.id, 'probe', all);
  const bystander = await service(envs.bystander.id, 'bystander', all);

  // the first rollout of every service, all at once; on a loaded machine a container's start can
  // fail (runc timing out) and the plan rolls back, which is not what the run is about: again
  await Promise.all([web, canary, probe, bystander].map(async (s) => {
    for (let attempt = 0; ; attempt++) {
      const res = await a.post(`/api/services/${s.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'parallel' }, 300_000);
      if (res.body?.status === 'succeeded') return;
      if (attempt === 3) throw new Error(`the first deploy of ${s.name}: ${res.status} ${res.text.slice(0, 800)}`);
      log(`the first deploy of ${s.name} ended ${res.body?.status ?? res.status}: again`);
    }
  }));
  const partial = { fleet, envs, tag };
  must('first apply', await a.post('/api/manifests/apply', { files: applyFiles(partial, 'v1', 0) }));
  repo.commit(gitFiles(partial, 'v1', 0), 'chaos: first commit');
  must('git source', await a.put(`/api/environments/${envs.git.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 5 }));
  const db = createKnex(urls.hostList, 3);
  const named = async (envId: string, name: string): Promise<Ref> => {
    for (let i = 0; i < 600; i++) {
      const row = await db('services').where({ environmentId: envId, name }).first();
      if (row) return { id: row.id, name };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${name} was never written by its manifests`);
  };
  const services = { web, canary, probe, bystander, applied: await named(envs.apply.id, `applied-${tag}`), gitweb: await named(envs.git.id, `gitweb-${tag}`) };
  log('services deployed; the Git source and the manifest apply wrote theirs');

  const untouchable: ChaosWorld['untouchable'] = [];
  for (const server of all) {
    const name = `chaos-handmade-${tag}`;
    await serverExec(server, ['docker', 'run', '-d', '--name', name, '--restart', 'unless-stopped', fleet.images.webV1]);
    untouchable.push({ server, name, why: 'hand-made' }, { server, name: `bystander-${tag}-${server}`, why: `environment ${envs.bystander.name}` });
  }

  const [{ max }] = await db('events').max('id as max');
  const sse = replicas.map((r) => new SseClient(() => r.url, token!));
  for (const c of sse) c.start();
  for (let i = 0; i < 600 && sse.some((c) => c.connects === 0); i++) await new Promise((r) => setTimeout(r, 100));
  return {
    fleet, tag, pair, urls, replicas, answers, api, token: token!, db, envs, services, repo, secrets, sse,
    firstEventId: Number(max ?? 0), untouchable, stateDirs,
  };
}

export async function stopWorld(w: ChaosWorld | undefined, log: (line: string) => void): Promise<void> {
  if (!w) return;
  for (const c of w.sse) c.stop();
  await Promise.all(w.replicas.map((r) => r.controller.kill('SIGTERM').catch(() => undefined)));
  await w.db.destroy().catch(() => undefined);
  for (const s of w.fleet.servers) {
    await serverExec(s.name, ['sh', '-c', `docker ps -aq --filter name=${w.tag} | xargs -r docker rm -f; rm -rf /opt/stevedore/deployments/*${w.tag}*`]).catch((e) => log(`cleanup on ${s.name}: ${String(e)}`));
  }
  await w.pair.down().catch((e) => log(`pair down: ${String(e)}`));
  w.repo.remove();
  for (const d of w.stateDirs) fs.rmSync(d, { recursive: true, force: true });
}
