import { expect } from 'chai';
import type { TestService } from '../support/test-service.js';
import { startWithRoles } from '../support/fixtures.js';
import { createImage, createService, expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { BOMBS, deepNesting, emptyDocuments } from '../support/yaml-bombs.js';
import { spawn } from 'node:child_process';
import { until } from '../support/until.js';

/** Polls the URL until its stdin closes, printing each answer's latency in ms, one per line. */
const SAMPLER = `
let stop = false;
process.stdin.on('end', () => { stop = true; }).resume();
(async () => {
  while (!stop) {
    const t0 = performance.now();
    const res = await fetch(process.argv[1]);
    await res.arrayBuffer();
    process.stdout.write((performance.now() - t0).toFixed(2) + '\\n');
  }
})();
`;

/** A manifest file whose first document is a valid Environment and whose second carries the bomb. */
const manifestWith = (bomb: string) => `apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: bombed}\nspec: {}\n---\n${bomb}`;

describe('YAML bombs and limits on every route that reads YAML', () => {
  let svc: TestService;
  let admin: HttpClient;
  let operator: HttpClient;
  let envId: string;
  let imageId: string;

  before(async () => {
    ({ svc, admin, operator, envId } = await startWithRoles());
    imageId = (await createImage(admin, envId, 'registry.local:5000/acme/bombs')).id;
  });
  after(() => svc.stop());

  for (const [kind, bomb] of Object.entries(BOMBS)) {
    describe(kind, () => {
      it('POST /api/manifests/diff answers 400 naming the file', async () => {
        const res = await operator.post('/api/manifests/diff', { files: [{ path: 'bomb.yaml', content: manifestWith(bomb()) }] });
        expectError(res, 400, 'VALIDATION_ERROR');
        expect(res.body.message).to.include('bomb.yaml');
      });

      for (const dryRun of [false, true]) {
        it(`POST /api/manifests/apply${dryRun ? ' (dry run)' : ''} answers 400 naming the file and applies nothing`, async () => {
          const res = await admin.post('/api/manifests/apply', { files: [{ path: 'bomb.yaml', content: manifestWith(bomb()) }], dryRun });
          expectError(res, 400, 'VALIDATION_ERROR');
          expect(res.body.message).to.include('bomb.yaml');
          const envs = await admin.get('/api/environments');
          expect(envs.body.items.map((e: { name: string }) => e.name)).not.to.include('bombed');
        });
      }

      it('a service\'s composeTemplate answers 400 naming the field on create, PATCH and PUT …/compose', async () => {
        const template = `services:\n  api:\n    image: x\n${bomb('x-bomb')}`;
        expectError(await operator.post(`/api/environments/${envId}/services`, { name: 'bombed', containerImageId: imageId, composeTemplate: template }),
          400, 'VALIDATION_ERROR', 'composeTemplate');
        const service = await createService(operator, envId, { containerImageId: imageId });
        expectError(await operator.patch(`/api/services/${service.id}`, { composeTemplate: template }), 400, 'VALIDATION_ERROR', 'composeTemplate');
        expectError(await operator.put(`/api/services/${service.id}/compose`, { composeTemplate: template }), 400, 'VALIDATION_ERROR', 'composeTemplate');
      });
    });
  }

  it('nesting deeper than the parser\'s stack is a syntax error of the file: diff 200 ok: false, apply and composeTemplate 400', async () => {
    const diff = await operator.post('/api/manifests/diff', { files: [{ path: 'deep.yaml', content: manifestWith(deepNesting()) }] });
    expect(diff.status, diff.text).to.equal(200);
    expect(diff.body.ok).to.equal(false);
    expect(diff.body.errors[0]).to.include({ file: 'deep.yaml' });
    const apply = await admin.post('/api/manifests/apply', { files: [{ path: 'deep.yaml', content: manifestWith(deepNesting()) }] });
    expectError(apply, 400, 'VALIDATION_ERROR');
    expect(apply.body.message).to.include('deep.yaml');
    const template = `services:\n  api:\n    image: x\n${deepNesting('x-deep')}`;
    expectError(await operator.post(`/api/environments/${envId}/services`, { name: 'deep', containerImageId: imageId, composeTemplate: template }),
      400, 'VALIDATION_ERROR', 'composeTemplate');
  });

  it('a 200,000-document manifest (800 KB) is refused with 400 naming the file and the cap', async () => {
    const content = emptyDocuments(200_000);
    expect(content.length).to.equal(800_000);
    for (const res of [
      await operator.post('/api/manifests/diff', { files: [{ path: 'many.yaml', content }] }),
      await admin.post('/api/manifests/apply', { files: [{ path: 'many.yaml', content }], dryRun: true }),
    ]) {
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.message).to.match(/many\.yaml.*more than 10000 YAML documents/);
    }
  });

  it('the document cap counts every file of a request', async () => {
    const files = [0, 1, 2].map((i) => ({ path: `part-${i}.yaml`, content: emptyDocuments(4_000) }));
    const res = await operator.post('/api/manifests/diff', { files });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.message).to.match(/part-2\.yaml.*more than 10000 YAML documents/);
  });

  it('/health keeps answering while a 1 MB manifest is parsed: no stall holds it for the parse', async function () {
    this.timeout(120_000);
    const doc = (i: number) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: V_${i}, environment: nowhere}\nspec: {value: "${'x'.repeat(150)}"}\n`;
    const parts: string[] = [];
    for (let i = 0, size = 0; size < 1_000_000; i++) size += (parts[i] = doc(i)).length + 4;
    const content = parts.join('---\n').slice(0, 1_000_000); // 1 MB; escaped as JSON it stays under the 1 MiB body limit
    // /health is sampled from a process of its own, as a monitor would: a client in this process
    // (the service's own) would need its own turns of the event loop, each behind a slice of the parse
    const sampler = spawn(process.execPath, ['-e', SAMPLER, `${svc.url}/health`], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    sampler.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    const lines = () => out.split('\n').filter(Boolean).map(Number);
    // the machine's own pace first: /health with nothing else to do (after 5 samples of warm-up: the
    // sampler's first requests open its connection)
    await until('25 idle /health samples', async () => lines().length >= 25, { timeoutMs: 30_000 });
    const idle = lines().slice(5, 25);
    const before = lines().length;
    // plain fetch: the test client's OpenAPI check of the answer would run in this process, among the samples
    const started = performance.now();
    const res = await fetch(`${svc.url}/api/manifests/diff`, {
      method: 'POST', headers: { authorization: `Bearer ${operator.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ files: [{ path: 'big.yaml', content }] }),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const took = performance.now() - started;
    // samples taken while the diff ran (the sampler asks again as soon as it has an answer)
    const latencies = lines().slice(before);
    const exited = new Promise((r) => sampler.once('exit', r));
    sampler.stdin!.end();
    await exited;
    expect(res.status, res.text).to.equal(200);
    expect(JSON.parse(res.text).ok, 'the folder is read to the end: its documents name an unknown environment').to.equal(false);
    // Unsliced, the parse held the loop for all of it: one or two samples, each about as long as the
    // whole request. Sliced, /health answers throughout and no sample waits anywhere near the
    // request's time. Both are ratios of one run, whatever the machine's load; the figure in
    // milliseconds (under 100 ms added, idle) is bench/manifest-parse-health.ts's, not a test's:
    // beside the end-to-end fleets a full run saw the 95th percentile add 146 ms.
    const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
    const max = Math.max(...latencies);
    // eslint-disable-next-line no-console
    console.log(`      /health idle: median ${at(idle, 0.5).toFixed(1)} ms, max ${Math.max(...idle).toFixed(1)} ms; during a 1 MB parse of ${took.toFixed(0)} ms: `
      + `${latencies.length} samples, median ${at(latencies, 0.5).toFixed(1)} ms, p95 ${at(latencies, 0.95).toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    expect(latencies.length, '/health answered throughout the parse').to.be.at.least(10);
    expect(max, `the longest /health wait against the whole request (${took.toFixed(0)} ms)`).to.be.below(took / 3);
  });
});
