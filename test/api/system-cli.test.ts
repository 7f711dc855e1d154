import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, userWithRole } from '../support/fixtures.js';
import { expectError } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { checkedFetch } from '../support/openapi-check.js';

describe('CLI downloads', () => {
  let svc: TestService;
  let viewer: HttpClient;

  before(async () => {
    svc = await startTestService();
    const admin = await bootstrapAdmin(svc.http);
    viewer = (await userWithRole(admin, 'viewer')).client;
  });
  after(() => svc.stop());

  it('lists every OS and architecture; a download matches its checksum and runs --version', async function () {
    this.timeout(30_000); // the first request bundles the CLI (about a second, longer on a busy machine)
    const list = await viewer.get('/api/system/cli');
    expect(list.status, list.text).to.equal(200);
    const pairs = list.body.items.map((i: { os: string; arch: string }) => `${i.os}/${i.arch}`);
    expect(pairs).to.include.members(['linux/x64', 'linux/arm64', 'darwin/arm64', 'windows/x64']);
    const linux = list.body.items.find((i: { os: string; arch: string }) => i.os === 'linux' && i.arch === process.arch);
    expect(linux).to.include({ format: 'node-bundle', url: `/api/system/cli/linux/${process.arch}` });

    const res = await checkedFetch(svc.url + linux.url, { headers: { authorization: `Bearer ${viewer.token}` } });
    expect(res.status).to.equal(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).to.equal(linux.size);
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(sha).to.equal(linux.sha256);
    expect(res.headers.get('x-checksum-sha256')).to.equal(sha);
    expect(res.headers.get('content-disposition')).to.contain(linux.fileName);

    // run it alone, outside the project, so nothing but the file itself can answer
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-cli-'));
    try {
      const file = path.join(dir, linux.fileName);
      fs.writeFileSync(file, bytes, { mode: 0o755 });
      expect(execFileSync(file, ['--version'], { cwd: dir, encoding: 'utf8' }).trim()).to.equal(`stevedore ${list.body.items[0].version}`);
      const health = await svc.http.get('/health');
      expect(list.body.items[0].version).to.equal(health.body.cliVersion);
      fs.mkdirSync(path.join(dir, 'manifests'));
      expect(execFileSync(process.execPath, [file, 'validate', 'manifests'], { cwd: dir, encoding: 'utf8' })).to.contain('0 manifest(s) valid');
      // the same program as the package's bin (commander's help lists its commands), without serve
      const help = execFileSync(process.execPath, [file, '--help'], { cwd: dir, encoding: 'utf8' });
      expect(help).to.include('login [options] <url>').and.include('deploy [options] <service>').and.include('logs [options] <service>');
      expect(help).not.to.match(/^\s+serve\s/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers 404 for an unknown platform and 401 without a token', async () => {
    expectError(await viewer.get('/api/system/cli/plan9/x64'), 404, 'NOT_FOUND');
    expectError(await viewer.get('/api/system/cli/linux/mips'), 404, 'NOT_FOUND');
    expectError(await svc.http.get('/api/system/cli'), 401, 'UNAUTHORIZED');
  });
});
