// The dashboard is served next to the API without changing it: pages and assets at /, JSON under /api.
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';

describe('dashboard serving', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => { svc = await startTestService(); });
  after(() => svc?.stop());

  const fetchRaw = (path: string, headers: Record<string, string> = {}) => fetch(`${svc.url}${path}`, { headers });

  it('answers the page shell at / and at any page path, with a strict content security policy', async () => {
    for (const path of ['/', '/env/0b4a3c1e-0000-4000-8000-000000000000/drift']) {
      const res = await fetchRaw(path);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('content-security-policy')).to.include("default-src 'self'");
      expect(await res.text()).to.include('<script type="module" src="/assets/app.js">');
    }
  });

  it('gives each page load a style nonce of its own, in the header and in the page, and none to the assets', async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetchRaw('/');
      const csp = res.headers.get('content-security-policy')!;
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]+)';/.exec(csp)?.[1];
      expect(nonce, csp).to.be.a('string').with.length(24);
      expect(csp).to.not.include('unsafe-inline');
      expect(await res.text()).to.include(`<meta name="style-nonce" content="${nonce}">`);
      nonces.push(nonce!);
    }
    expect(nonces[0]).to.not.equal(nonces[1]);
    const asset = await fetchRaw('/assets/app.css');
    expect(asset.headers.get('content-security-policy')).to.include("style-src 'self';");
    // gzipped too, the page carries the nonce of its own answer
    const zipped = await rawGet('/', 'gzip');
    expect(gunzipSync(zipped.body).toString()).to.match(/<meta name="style-nonce" content="[A-Za-z0-9+/=]{24}">/);
  });

  /** The raw answer, as sent: fetch() would decompress it. */
  const rawGet = (path: string, encoding: string) => new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
    http.get(`${svc.url}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) })).on('error', reject);
    }).on('error', reject);
  });

  it('serves the bundle gzipped to a browser that accepts it, plain otherwise', async () => {
    const zipped = await rawGet('/assets/app.js', 'gzip, deflate');
    const plain = await rawGet('/assets/app.js', 'identity');
    expect([zipped.encoding, plain.encoding]).to.deep.equal(['gzip', undefined]);
    expect(plain.body.length).to.be.above(1000);
    expect(gunzipSync(zipped.body).equals(plain.body)).to.equal(true);
  });

  it('leaves /api, /health and unknown assets to the API', async () => {
    const api = await fetchRaw('/api/nope');
    expect(api.status).to.equal(404);
    expect(((await api.json()) as { code: string }).code).to.equal('NOT_FOUND');
    expect((await fetchRaw('/health')).headers.get('content-type')).to.match(/json/);
    expect((await fetchRaw('/assets/missing.js')).status).to.equal(404);
    expect((await fetch(`${svc.url}/`, { method: 'POST' })).status).to.equal(404);
  });
});
