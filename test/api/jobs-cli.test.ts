// The CLI's job verbs (node bin/stevedore.js off a terminal) against the real service: apply a
// Job manifest, get jobs, job runs, job trigger (refused here: the service's one server cannot
// be reached, so nothing is deployed), delete job. What a triggered run does is e2e.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliHome } from '../support/cli-run.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('stevedore get jobs, job runs, job trigger', function () {
  this.timeout(240_000);
  let svc: TestService;
  let admin: HttpClient;
  let home: CliHome;
  let auth: Record<string, string>;
  let dir: string;
  let env: { id: string; name: string };

  before(async () => {
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600', SCHEDULER_JOBS_SEC: '3600' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin);
    auth = { STEVEDORE_URL: svc.url, STEVEDORE_TOKEN: admin.token! };
    home = new CliHome();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-jobs-'));
  });
  after(async () => {
    home?.remove();
    fs.rmSync(dir, { recursive: true, force: true });
    await svc.stop();
  });

  it('applies a Job, lists it, shows its (empty, then recorded) runs, refuses a trigger with one line, deletes it', async () => {
    const file = path.join(dir, 'job.yaml');
    fs.writeFileSync(file, [
      'apiVersion: stevedore/v1', 'kind: Server', `metadata: {name: nowhere, environment: ${env.name}}`, 'spec: {hostname: 127.0.0.1, sshPort: 1}', '---',
      'apiVersion: stevedore/v1', 'kind: ContainerImage', `metadata: {name: web, environment: ${env.name}}`, 'spec: {imageName: registry.test:5000/acme/web}', '---',
      'apiVersion: stevedore/v1', 'kind: Service', `metadata: {name: web, environment: ${env.name}}`, 'spec: {image: web, imageTag: v1, deployments: [{server: nowhere}]}', '---',
      'apiVersion: stevedore/v1', 'kind: Job', `metadata: {name: nightly, environment: ${env.name}}`,
      'spec: {service: web, command: [sh, -c, "echo hi"], schedule: "0 3 * * *", timeZone: Europe/Paris}', '',
    ].join('\n'));
    const applied = await home.run(['apply', file], { env: auth });
    expect(applied.code, applied.stdout + applied.stderr).to.equal(0);
    const got = await home.run(['get', 'jobs', '-e', env.name], { env: auth });
    expect(got.code, got.stderr).to.equal(0);
    const [header, row] = got.stdout.trim().split('\n');
    expect(header).to.match(/^NAME\s+SCHEDULE\s+POLICY\s+ENABLED\s+NEXT\s+AGE$/);
    expect(row).to.match(/^nightly\s+0 3 \* \* \* \(Europe\/Paris\)\s+forbid\s+true\s/);
    const none = await home.run(['job', 'runs', 'nightly', '-e', env.name, '-o', 'json'], { env: auth });
    expect(none.code, none.stderr).to.equal(0);
    expect(JSON.parse(none.stdout)).to.deep.equal({ items: [] });

    const trigger = await home.run(['job', 'trigger', 'nightly', '-e', env.name], { env: auth });
    expect(trigger.code).to.equal(1);
    expect(trigger.stderr.trim().split('\n'), trigger.stderr).to.have.length(1);
    expect(trigger.stderr).to.include('not deployed');
    const unknown = await home.run(['job', 'runs', 'weekly', '-e', env.name], { env: auth });
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('no job weekly');

    // a recorded occurrence, as the scheduler writes it, in the table
    const job = await svc.services.db('jobs').where({ name: 'nightly' }).first();
    await svc.services.db('job_runs').insert({ jobId: job.id, environmentId: env.id, trigger: 'schedule', scheduledAt: new Date('2026-01-01T02:00:00Z'), outcome: 'missed', reason: 'not started by its deadline' });
    const runs = await home.run(['job', 'runs', 'nightly', '-e', env.name], { env: auth });
    expect(runs.code, runs.stderr).to.equal(0);
    expect(runs.stdout, runs.stdout).to.match(/^SCHEDULED\s+TRIGGER\s+STATUS\s+EXIT\s+DURATION\s+REASON\s+AGE\n2026-01-01T02:00:00.000Z\s+schedule\s+missed\s+<none>\s+<none>\s+not started by its deadline\s+\d+s\n$/);

    // declared by the file: delete is refused, as for every kind; once the file drops it, prune removes it
    const refused = await home.run(['delete', 'job', 'nightly', '-e', env.name], { env: auth });
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('manifest');
  });
});
