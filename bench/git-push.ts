// bench/git-push.ts - push → plan start for an environment's Git source.
//   DATABASE_URL=postgres://… npx tsx bench/git-push.ts [pushes=10]
// Starts the real service on a fresh database with a Git source (a bare repository on this
// machine, file://, webhook only) holding a server and a service with one deployment. Each round
// commits a new image tag, posts a signed GitHub push webhook and times until the plan for that
// commit exists (fetch + apply + hand-off). The server is a closed loopback port: the plan
// starts and fails on it, which does not change what is timed. Goal: under 2 s.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../controller/config/config.js';
import { createLogger } from '../controller/logger.js';
import { startService } from '../controller/serve.js';
import { createApp } from '../api/app.js';
import { RECONCILERS } from '../reconcilers/wiring.js';
import { createTestDatabase, dropTestDatabases } from '../test/support/test-database.js';
import { HttpClient } from '../test/support/http-client.js';
import { bootstrapAdmin, createEnvironment } from '../test/support/fixtures.js';
import { createRepo } from '../test/support/git-repo.js';
import { TEST_GIT_ROOT } from '../test/support/git-file-roots.js';
import { closedPort } from '../test/support/ports.js';

const PUSHES = Number(process.argv[2] ?? 10);
const SECRET = 'bench-secret';

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-bench-'));
const config = loadConfig({
  STEVEDORE_STATE_DIR: stateDir, DATABASE_URL: await createTestDatabase(), PORT: '0', HOST: '127.0.0.1',
  RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'error', CODEHOST_WEBHOOK_SECRET: SECRET, OUTGOING_ALLOW_LIST: '127.0.0.1', PASSWORD_HASH_COST: '10',
  GIT_FILE_ROOTS: TEST_GIT_ROOT,
});
const svc = await startService(createApp, RECONCILERS, config, createLogger('error'));
const repo = createRepo();
try {
  const http = new HttpClient(svc.url);
  const admin = await bootstrapAdmin(http);
  const env = await createEnvironment(admin);
  const port = new URL(await closedPort()).port;
  const files = (tag: string) => ({
    'servers.yaml': `apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: s1, environment: ${env.name}}\nspec: {hostname: 127.0.0.1, sshPort: ${port}}\n`,
    'image.yaml': `apiVersion: stevedore/v1\nkind: ContainerImage\nmetadata: {name: web, environment: ${env.name}}\nspec: {imageName: registry.example/web}\n`,
    'service.yaml': `apiVersion: stevedore/v1\nkind: Service\nmetadata: {name: web, environment: ${env.name}}\nspec: {image: web, imageTag: "${tag}", deployments: [{server: s1}]}\n`,
  });
  repo.commit(files('0'), 'tag 0');
  await admin.put(`/api/environments/${env.id}/manifests-source`, { url: repo.url, pollIntervalSec: 0 });
  const plans = () => svc.services.db('deployment_plans').where({ environmentId: env.id }).orderBy('createdAt', 'desc');
  for (let i = 0; i < 100 && (await plans()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: repo.url, default_branch: 'main' } });
  const signature = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const times: number[] = [];
  for (let n = 1; n <= PUSHES; n++) {
    const sha = repo.commit(files(String(n)), `tag ${n}`);
    const name = `manifests ${sha.slice(0, 12)}`;
    const t0 = performance.now();
    const r = await http.post('/api/webhooks/git', undefined, { raw: body, token: null, headers: { 'x-github-event': 'push', 'x-hub-signature-256': signature } });
    if (r.status !== 202) throw new Error(`webhook answered ${r.status}: ${r.text}`);
    for (;;) {
      if ((await plans()).some((p: { name: string }) => p.name === name)) break;
      if (performance.now() - t0 > 30_000) throw new Error(`no plan for ${sha} after 30 s: ${(await admin.get(`/api/environments/${env.id}/manifests-source/status`)).text} ${JSON.stringify(await plans())}`);
      await new Promise((res) => setTimeout(res, 5));
    }
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(0);
  console.log(`git push → plan start, ${PUSHES} pushes (file:// repository, one service): median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${times.at(-1)!.toFixed(0)} ms (goal < 2000 ms)`);
} finally {
  await svc.stop();
  repo.remove();
  fs.rmSync(stateDir, { recursive: true, force: true });
  await dropTestDatabases();
}
