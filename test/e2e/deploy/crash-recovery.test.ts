// The real service as a child process (`node bin/stevedore.js serve`), killed with SIGKILL in the
// middle of a plan and started again: the plan must end in a terminal state with no step running.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createKnex } from '../../../controller/store/knex.js';
import { addService, cleanup, httpBody, startWorld, type World } from './deploy-world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"msg":"stevedore listening","url":"([^"]+)"/.exec(out);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1] }); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`service exited ${code}:\n${out}`)); });
  });
}

describe('a plan interrupted by SIGKILL (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let child: ChildProcess | null = null;
  after(async () => {
    child?.kill('SIGKILL');
    await cleanup(w);
  });

  it('is recovered on restart: it ends rolled back and no step stays running', async () => {
    w = await startWorld();
    const app = await addService(w, 'crash', { servers: ['s1', 's2', 's3'] });
    const first = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'parallel' });
    expect(first.body.status, first.text).to.equal('succeeded');
    const plan = (await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, { items: [{ serviceId: app.service.id, imageTag: 'v2' }] })).body;
    const c = w.s.config;
    const env = {
      DATABASE_URL: c.databaseUrl!, SECRETS_KEY: c.secretsKey.toString('base64'), JWT_SECRET: c.jwtSecret,
      PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0',
      STEVEDORE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-crash-')),
    };
    // the in-process service stops (its database stays): only the child works on the plan
    await w.svc.stop();
    const token = w.admin.token!;
    const db = createKnex(c.databaseUrl!, 2);
    try {
      let running = await serve(env);
      child = running.child;
      const exec = await fetch(`${running.url}/api/deployment-plans/${plan.id}/execute`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(exec.status).to.equal(202);
      // kill it while the second step runs: one step done, one half-way, one not started
      for (let i = 0; ; i++) {
        const steps = await db('plan_steps').where({ planId: plan.id }).orderBy('position');
        if (steps[1].status === 'running') break;
        if (i > 600) throw new Error('the second step never started');
        await sleep(25);
      }
      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));
      expect((await db('deployment_plans').where({ id: plan.id }).first()).status).to.equal('running');

      running = await serve(env);
      child = running.child;
      let row;
      for (let i = 0; ; i++) {
        row = await db('deployment_plans').where({ id: plan.id }).first();
        if (!['running', 'rolling_back'].includes(row.status)) break;
        if (i > 600) throw new Error(`plan still ${row.status}`);
        await sleep(100);
      }
      const steps = await db('plan_steps').where({ planId: plan.id }).orderBy('position');
      expect(steps.map((s) => s.status)).to.not.include('running');
      expect(steps.map((s) => s.status)).to.not.include('pending');
      expect(row.status).to.equal('rolled_back');
      expect(steps[1].error).to.match(/controller stopped/);
      for (const d of app.deployments) expect(await httpBody(d.containerName.split('-').at(-1)!, d.containerName)).to.include('web v1');
    } finally {
      await db.destroy();
    }
  });
});
