// What users keep doing while the faults land, one operation at a time, drawn from the seeded
// workload stream: deploys (rolling, and one of a tag that does not exist: a failed rollout the
// service must fall back from), canaries (a canary rollout with an analysis), reverts to an
// earlier good revision, manifest applies, config edits (a service's env patched, an unreferenced
// var and secret written) and Git pushes to the Git source, with reads in between, each against
// either replica. Plans are not waited for: they overlap, supersede each other and meet the faults.
import crypto from 'node:crypto';
import type { Api } from './api.js';
import { between, pickWith, weighted } from './random.js';
import { applyFiles, gitFiles, type ChaosWorld, type Ref } from './world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Op = 'deploy' | 'canary' | 'failing-deploy' | 'revert' | 'apply' | 'config' | 'var' | 'secret' | 'git-push' | 'read';
const OPS: ReadonlyArray<readonly [Op, number]> = [
  ['deploy', 3], ['canary', 2], ['failing-deploy', 0.5], ['revert', 1], ['apply', 1.5], ['config', 1.5],
  ['var', 1], ['secret', 0.5], ['git-push', 1.5], ['read', 3],
];

export class Workload {
  readonly counts = new Map<string, number>();
  private running = false;
  private loop: Promise<void> | null = null;
  private n = 0;
  private varId: string | null = null;
  private secretId: string | null = null;

  constructor(private readonly w: ChaosWorld, private readonly random: () => number) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops after the operation in flight. */
  async pause(): Promise<void> {
    this.running = false;
    await this.loop;
    this.loop = null;
  }

  private api(): Api {
    const up = this.w.replicas.filter((r) => r.running);
    // a replica being restarted is still asked sometimes: its refused connections are excused
    return this.w.api(pickWith(this.random, up.length && this.random() < 0.9 ? up : this.w.replicas));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const op = weighted(this.random, OPS);
      const api = this.api();
      try {
        const outcome = await this.do(op, api);
        this.counts.set(`${op} ${outcome}`, (this.counts.get(`${op} ${outcome}`) ?? 0) + 1);
      } catch (err) {
        this.counts.set(`${op} error`, (this.counts.get(`${op} error`) ?? 0) + 1);
        if (process.env.CHAOS_DEBUG) console.error(`workload ${op}: ${String(err)}`);
      }
      await sleep(between(this.random, 500, 2500));
    }
  }

  private tag(): string {
    return this.random() < 0.5 ? 'v1' : 'v2';
  }

  private async do(op: Op, api: Api): Promise<string | number> {
    const { services: s, envs } = this.w;
    const n = ++this.n;
    switch (op) {
      case 'deploy':
        // (never the probe: the harness's own recovery signal, which a workload deploy would supersede)
        return (await api.post(`/api/services/${s.web.id}/deploy`, { imageTag: this.tag(), strategy: 'rolling' })).status;
      case 'canary':
        return (await api.post(`/api/services/${s.canary.id}/deploy`, { imageTag: this.tag() })).status;
      case 'failing-deploy':
        // a tag the registry does not have: the pull fails, the plan rolls back, the service falls back
        return (await api.post(`/api/services/${pickWith(this.random, [s.web, s.canary] as Ref[]).id}/deploy`, { imageTag: `missing-${n}`, strategy: 'rolling' })).status;
      case 'revert': {
        const ref = pickWith(this.random, [s.web, s.canary] as Ref[]);
        const list = await api.get(`/api/services/${ref.id}/revisions`);
        const items = (Array.isArray(list.body) ? list.body : list.body?.items ?? []) as Array<{ revision: number; outcome: string }>;
        const good = items.filter((r) => r.outcome === 'succeeded');
        if (!good.length) return `list ${list.status}`;
        return (await api.post(`/api/services/${ref.id}/revisions/${pickWith(this.random, good).revision}/revert`)).status;
      }
      case 'apply':
        return (await api.post('/api/manifests/apply', { files: applyFiles(this.w, this.tag(), n) })).status;
      case 'config':
        return (await api.patch(`/api/services/${pickWith(this.random, [s.web, s.canary] as Ref[]).id}`, { env: { GREETING: '${GREETING}', API_KEY: '${API_KEY}', EDIT: String(n) } })).status;
      case 'var': {
        if (!this.varId) {
          const made = await api.post(`/api/environments/${envs.main.id}/vars`, { key: `CHAOS_${n}`, value: String(n) });
          if (made.status === 201) this.varId = made.body.id;
          return made.status;
        }
        if (this.random() < 0.3) {
          const gone = await api.delete(`/api/vars/${this.varId}`);
          if (gone.status === 204 || gone.status === 404) this.varId = null;
          return gone.status;
        }
        return (await api.patch(`/api/vars/${this.varId}`, { value: String(n) })).status;
      }
      case 'secret': {
        // recognisable random values, none referenced by a service: they must stay out of every log
        const value = `chaos-secret-${crypto.randomBytes(12).toString('hex')}`;
        this.w.secrets.push(value);
        if (!this.secretId) {
          const made = await api.post(`/api/environments/${envs.main.id}/secrets`, { key: `ROTATED_${n}`, value });
          if (made.status === 201) this.secretId = made.body.id;
          return made.status;
        }
        return (await api.patch(`/api/secrets/${this.secretId}`, { value })).status;
      }
      case 'git-push': {
        this.w.repo.commit(gitFiles(this.w, this.tag(), n), `chaos push ${n}`);
        // what a code host's push webhook asks for: a sync now (the poll would find it too)
        return (await api.post(`/api/environments/${envs.git.id}/manifests-source/sync`)).status;
      }
      case 'read': {
        const path = pickWith(this.random, [
          `/api/environments/${envs.main.id}/services`, `/api/services/${s.web.id}`, `/api/environments/${envs.main.id}/deployment-plans`,
          `/api/environments/${envs.git.id}/manifests-source/status`, '/health', `/api/environments/${envs.main.id}/servers`,
        ]);
        return (await api.get(path)).status;
      }
    }
  }
}
