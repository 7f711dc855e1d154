import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { createService, insertServer } from '../support/catalog-fixtures.js';
import { launchBrowser } from '../support/browser.js';
import { startWithRoles, type RoleWorld } from '../support/fixtures.js';

const MERMAID_BUNDLE = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');

/** Mermaid itself, in a real browser engine: null when it parses, else its error. */
async function mermaidError(page: Page, text: string): Promise<string | null> {
  return page.evaluate(async (t) => {
    try {
      await (globalThis as any).mermaid.parse(t);
      return null;
    } catch (e) {
      return String((e as Error).message ?? e);
    }
  }, text);
}

describe('Mermaid export: mermaid itself parses and renders it', () => {
  let w: RoleWorld;
  let browser: Browser;
  let page: Page;

  before(async function () {
    this.timeout(60_000);
    w = await startWithRoles();
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
    await page.addScriptTag({ path: MERMAID_BUNDLE });
    await page.evaluate(() => (globalThis as any).mermaid.initialize({ startOnLoad: false }));
  });
  after(async () => {
    await browser?.close();
    await w?.svc.stop();
  });

  it('a broken diagram is refused (the check can fail)', async () => {
    expect(await mermaidError(page, 'flowchart LR\n  a["x"] --> b["y\n')).to.be.a('string');
  });

  it('an environment with every node and edge kind, clusters and hostile names exports valid Mermaid', async function () {
    this.timeout(60_000);
    const { operator, envId, svc } = w;
    const web = await createService(operator, envId, { name: 'web' });
    const api = await createService(operator, envId, { name: 'api' });
    await operator.post(`/api/services/${web.id}/dependencies`, { dependsOnServiceId: api.id });
    const s1 = await insertServer(svc, envId, 'app-1');
    await insertServer(svc, envId, 'lonely');
    const hostile = await operator.post(`/api/environments/${envId}/external-entities`, {
      name: 'quotes', type: 'say "hi" | end; #1 <b>&amp; `x`\nsubgraph',
    });
    expect(hostile.status, hostile.text).to.equal(201);
    const entity = (await operator.post(`/api/environments/${envId}/external-entities`, { name: 'stripe', type: 'saas' })).body;
    expect((await operator.post(`/api/environments/${envId}/server-clusters`, { name: 'front "door"', serverIds: [s1.id] })).status).to.equal(400);
    expect((await operator.post(`/api/environments/${envId}/server-clusters`, { name: 'front', serverIds: [s1.id] })).status).to.equal(201);
    for (const [from, to, extra] of [
      [{ kind: 'Service', id: api.id }, { kind: 'ExternalEntity', id: entity.id }, { label: 'pay "now" |x|' }],
      [{ kind: 'Service', id: web.id }, { kind: 'Server', id: s1.id }, { protocol: 'http', port: 8080 }],
      [{ kind: 'ExternalEntity', id: hostile.body.id }, { kind: 'Service', id: web.id }, {}],
    ] as const) {
      const res = await operator.post('/api/connections', { environmentId: envId, from, to, ...extra });
      expect(res.status, res.text).to.equal(201);
    }
    const res = await w.viewer.get(`/api/diagram-export?environmentId=${envId}&format=mermaid`);
    expect(res.status, res.text).to.equal(200);
    expect(await mermaidError(page, res.text), res.text).to.equal(null);

    const svg = await page.evaluate(async (t) => (await (globalThis as any).mermaid.render('topology', t)).svg as string, res.text);
    for (const label of ['web', 'api', 'app-1', 'lonely', 'stripe (saas)', 'front', 'depends on', 'http:8080']) {
      expect(svg, label).to.include(label);
    }
    expect(svg).to.include('say "hi" | end; #1 &lt;b&gt;&amp;amp; `x` subgraph');
  });
});
