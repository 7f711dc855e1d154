import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../support/test-service.js';

const run = promisify(execFile);
const redocly = path.resolve('node_modules/@redocly/cli/bin/cli.js');

describe('the served OpenAPI document under redocly lint', function () {
  this.timeout(180_000); // one lint of a ~1 MB document; slower on a loaded machine
  let svc: TestService;
  before(async () => { svc = await startTestService(); });
  after(async () => { await svc?.stop(); });

  it('has no error and no warning with the recommended rules and redocly.yaml', async () => {
    const res = await svc.http.get('/api/openapi.json');
    expect(res.status).to.equal(200);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-')), 'openapi.json');
    fs.writeFileSync(file, res.text);
    // --format json: the totals, whatever the exit code (warnings alone exit 0)
    const out = await run(process.execPath, [redocly, 'lint', file, '--config', 'redocly.yaml', '--format', 'json'], { maxBuffer: 64 << 20 })
      .catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    const report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });

  it('gives every operation a 2XX answer, but the browser redirects of single sign-on (302)', async () => {
    const doc = (await svc.http.get('/api/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const without: string[] = [];
    const redirects: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const codes = Object.keys(op.responses ?? {});
        if (codes.some((c) => /^2/.test(c))) continue;
        (codes.includes('302') ? redirects : without).push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(without).to.deep.equal([]);
    expect(redirects.sort()).to.deep.equal(['GET /api/auth/oidc/callback', 'GET /api/auth/oidc/login']);
  });
});
