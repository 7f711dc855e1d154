// bench/rollout-analysis.ts - what an analysis between waves adds to a rollout. A service on the
// fleet's three servers (placed by serverSelector) is rolled out as a canary (one server, then the
// two others) without analysis and with one of durationSec D, alternately, each round a new tag.
// Per rollout: the whole plan (startedAt → finishedAt), the gap between the canary's end and the
// next wave's start, and the analysis' own window. The goal: the gap with analysis is at most
// D + 1 s more than without (docs/progressive-delivery.md).
//   DATABASE_URL=postgres://... FLEET_ID=0 npx tsx bench/rollout-analysis.ts [rounds=3] [durationSec=5]
import { expect } from 'chai';
import { cleanup, startWorld, type World } from '../test/e2e/deploy/deploy-world.js';
import { dropTestDatabases } from '../test/support/test-database.js';

const rounds = Number(process.argv[2] ?? 3);
const D = Number(process.argv[3] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const t = (x: string) => new Date(x).getTime();

let w: World | undefined;
try {
  w = await startWorld({ LOG_LEVEL: 'warn' });
  const world = w;
  for (const server of ['s1', 's2', 's3']) await world.admin.patch(`/api/servers/${world.servers[server]}`, { labels: { role: 'web' } });
  const name = `pd-${world.tag}-bench`;
  const created = await world.admin.post(`/api/environments/${world.envId}/services`, {
    name, containerImageId: world.imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
  });
  const id = created.body.id as string;
  expect((await world.admin.post(`/api/services/${id}/deploy?wait=true`, { strategy: 'parallel' })).body.status).to.equal('succeeded');

  let tag = 'v1';
  const runOnce = async (analysis: boolean) => {
    const rollout = { strategy: 'canary', steps: [{ servers: 1 }], ...(analysis && { analysis: { durationSec: D } }) };
    expect((await world.admin.patch(`/api/services/${id}`, { rollout })).status).to.equal(200);
    tag = tag === 'v1' ? 'v2' : 'v1';
    const plan = (await world.admin.post(`/api/services/${id}/deploy?wait=true`, { imageTag: tag })).body;
    expect(plan.status, JSON.stringify(plan.error)).to.equal('succeeded');
    const canary = plan.steps.find((x: { wave: number }) => x.wave === 0);
    const nextStart = Math.min(...plan.steps.filter((x: { wave: number }) => x.wave === 1).map((x: { startedAt: string }) => t(x.startedAt)));
    const result = plan.waves[0].result;
    return {
      total: t(plan.finishedAt) - t(plan.startedAt),
      gap: nextStart - t(canary.finishedAt),
      window: result ? t(result.finishedAt) - t(result.startedAt) : 0,
    };
  };

  const without: Array<Awaited<ReturnType<typeof runOnce>>> = [];
  const withA: Array<Awaited<ReturnType<typeof runOnce>>> = [];
  for (let r = 0; r < rounds; r++) {
    without.push(await runOnce(false));
    withA.push(await runOnce(true));
  }
  console.log(`rollout-analysis: canary of 1 then 2 fleet servers, ${rounds} rounds each, analysis durationSec ${D}`);
  const line = (label: string, xs: typeof without) => console.log(
    `${label.padEnd(20)} plan ${sec(median(xs.map((x) => x.total)))}  canary→next wave ${sec(median(xs.map((x) => x.gap)))}  analysis window ${sec(median(xs.map((x) => x.window)))}`);
  line('without analysis', without);
  line('with analysis', withA);
  const added = median(withA.map((x) => x.gap)) - median(without.map((x) => x.gap));
  const addedTotal = median(withA.map((x) => x.total)) - median(without.map((x) => x.total));
  const worst = Math.max(...withA.map((x) => x.gap)) - median(without.map((x) => x.gap));
  console.log(`added by the analysis: ${sec(added)} between the waves (worst round ${sec(worst)}), ${sec(addedTotal)} to the whole plan; goal ≤ ${sec(D * 1000 + 1000)}: ${added <= D * 1000 + 1000 ? 'met' : 'NOT met'}`);
} finally {
  await cleanup(w);
  await dropTestDatabases().catch(() => undefined);
}
