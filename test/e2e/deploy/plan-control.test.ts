import { expect } from 'chai';
import { addService, cleanup, containerImage, httpBody, startWorld, waitPlan, type World } from './deploy-world.js';
import { sleep } from '../../support/until.js';

describe('controlling deployment plans on the fleet (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let app: Awaited<ReturnType<typeof addService>>;
  before(async () => {
    w = await startWorld();
    // autoManageCompose stays off: these deployments are recreated directly through the Docker API
    app = await addService(w, 'app', { servers: ['s1', 's2', 's3'], env: { MODE: 'direct' } });
    const first = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'parallel' });
    expect(first.body.status, first.text).to.equal('succeeded');
  });
  after(() => cleanup(w));

  it('keeps env, labels and restart policy when it recreates a container directly with a new tag', async () => {
    const res = await w.admin.post(`/api/services/${app.service.id}/deployments/${app.deployments[0].id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(res.body.status, res.text).to.equal('succeeded');
    const name = app.deployments[0].containerName;
    expect(await httpBody('s1', name)).to.include('web v2');
    const { serverExec } = await import('../../fleet/fleet.js');
    const inspect = JSON.parse(await serverExec('s1', ['docker', 'inspect', name]))[0];
    expect(inspect.Config.Env).to.include('MODE=direct');
    expect(inspect.Config.Env).to.include('VERSION=v2');
    expect(inspect.HostConfig.RestartPolicy.Name).to.equal('unless-stopped');
    expect(inspect.Config.Labels['stevedore.deployment-id']).to.equal(app.deployments[0].id);
    expect(await containerImage('s2', app.deployments[1].containerName)).to.match(/web:v1 running$/);
  });

  it('previews a dry run and changes nothing', async () => {
    const plans = await w.s.db('deployment_plans').count({ n: '*' });
    const res = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, { items: [{ serviceId: app.service.id, imageTag: 'v2' }], dryRun: true });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.steps).to.have.length(3);
    expect(res.body.steps[1].actions[1]).to.match(/recreate container .* through the Docker API/);
    expect(await w.s.db('deployment_plans').count({ n: '*' })).to.deep.equal(plans);
    const created = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, { items: [{ serviceId: app.service.id, imageTag: 'v2' }] });
    const dry = await w.admin.post(`/api/deployment-plans/${created.body.id}/execute?dryRun=true`);
    expect(dry.status, dry.text).to.equal(200);
    expect((await w.admin.get(`/api/deployment-plans/${created.body.id}`)).body.status).to.equal('pending');
    expect(await containerImage('s2', app.deployments[1].containerName)).to.match(/web:v1 running$/);
    await w.admin.post(`/api/deployment-plans/${created.body.id}/cancel`);
  });

  it('cancels a running plan before its next step and ends it cancelled', async () => {
    const created = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, { items: [{ serviceId: app.service.id, imageTag: 'v2' }], execute: true });
    expect(created.status, created.text).to.equal(201);
    for (;;) {
      const p = (await w.admin.get(`/api/deployment-plans/${created.body.id}`)).body;
      if (p.steps.some((x: { status: string }) => x.status !== 'pending')) break;
      await sleep(50);
    }
    const cancel = await w.admin.post(`/api/deployment-plans/${created.body.id}/cancel`);
    expect(cancel.status, cancel.text).to.equal(200);
    const plan = await waitPlan(w, created.body.id);
    expect(plan.status).to.equal('cancelled');
    const statuses = plan.steps.map((x: { status: string }) => x.status);
    expect(statuses[0]).to.equal('succeeded');
    expect(statuses.at(-1)).to.equal('cancelled');
    expect(statuses).to.not.include('running');
    const again = await w.admin.post(`/api/deployment-plans/${created.body.id}/execute`);
    expect(again.status).to.equal(409);
  });

  it('rolls a finished plan back by hand to the previous tag of every deployment it touched', async () => {
    const res = await w.admin.post(`/api/services/${app.service.id}/deploy?wait=true`, { imageTag: 'v2', strategy: 'parallel' });
    expect(res.body.status, res.text).to.equal('succeeded');
    expect(await httpBody('s3', app.deployments[2].containerName)).to.include('web v2');
    const rb = await w.admin.post(`/api/deployment-plans/${res.body.id}/rollback?wait=true`);
    expect(rb.status, rb.text).to.equal(200);
    expect(rb.body.status).to.equal('rolled_back');
    // s1 ran v2 before this plan as well, so its previous tag is v2
    expect(await httpBody('s1', app.deployments[0].containerName)).to.include('web v2');
    expect(await httpBody('s3', app.deployments[2].containerName)).to.include('web v1');
  });

  it('streams plan.step and plan.updated events until the plan finishes', async () => {
    const created = await w.admin.post(`/api/environments/${w.envId}/deployment-plans`, {
      items: [{ serviceId: app.service.id, imageTag: 'v1' }], strategy: 'parallel',
    });
    const ac = new AbortController();
    const res = await fetch(`${w.svc.url}/api/deployment-plans/${created.body.id}/events`, { headers: { authorization: `Bearer ${w.admin.token}` }, signal: ac.signal });
    expect(res.headers.get('content-type')).to.match(/text\/event-stream/);
    const reader = res.body!.getReader();
    await w.admin.post(`/api/deployment-plans/${created.body.id}/execute`);
    let text = '';
    while (!/event: plan\.updated\nid: \d+\ndata: \{[^\n]*"status":"succeeded"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    expect(text).to.match(/event: plan\.step\nid: \d+\ndata: /);
    expect(text).to.match(/event: deployment\.updated/);
    expect(text).to.not.include('MODE=direct');
    // resume: with Last-Event-ID only later events come back
    const firstId = Number(/id: (\d+)/.exec(text.split('event: plan.step')[1])![1]);
    const ac2 = new AbortController();
    const again = await fetch(`${w.svc.url}/api/deployment-plans/${created.body.id}/events`, {
      headers: { authorization: `Bearer ${w.admin.token}`, 'last-event-id': String(firstId) }, signal: ac2.signal,
    });
    const r2 = again.body!.getReader();
    let replay = '';
    while (!/"status":"succeeded"/.test(replay.split('event: plan.updated').at(-1) ?? '') || !replay.includes('event: plan.updated')) {
      const { value, done } = await r2.read();
      if (done) break;
      replay += new TextDecoder().decode(value);
    }
    ac2.abort();
    const ids = [...replay.matchAll(/id: (\d+)/g)].map((m) => Number(m[1]));
    expect(Math.min(...ids)).to.be.greaterThan(firstId);
  });

  it('fetches the container logs and restarts a deployment', async () => {
    const d = app.deployments[1];
    const logs = await w.admin.get(`/api/services/${app.service.id}/deployments/${d.id}/logs?tail=1000`);
    expect(logs.status, logs.text).to.equal(200);
    expect(logs.body.lines.map((l: { line: string }) => l.line).join('\n')).to.match(/web v\d listening on :80/);
    const before = (await containerImage('s2', d.containerName));
    const r = await w.admin.post(`/api/services/${app.service.id}/deployments/${d.id}/restart`);
    expect(r.status, r.text).to.equal(200);
    expect(await containerImage('s2', d.containerName)).to.equal(before);
  });

  it('lets two plans on the same server take turns: their steps never overlap, and the later request wins', async () => {
    const d = app.deployments[2];
    const make = (imageTag: string) => w.admin.post(`/api/environments/${w.envId}/deployment-plans`, {
      items: [{ serviceId: app.service.id, imageTag }], execute: true,
    });
    const [a, b] = await Promise.all([make('v2'), make('v1')]);
    const [pa, pb] = await Promise.all([waitPlan(w, a.body.id), waitPlan(w, b.body.id)]);
    // the request accepted later supersedes the other (unless that one had already finished)
    const [older, newer] = Date.parse(pa.createdAt) < Date.parse(pb.createdAt) ? [pa, pb] : [pb, pa];
    expect(newer.status).to.equal('succeeded');
    if (older.status !== 'succeeded') expect(older).to.include({ status: 'cancelled', error: `superseded by plan ${newer.id}` });
    expect(await containerImage('s3', d.containerName)).to.match(new RegExp(`web:${newer.steps[0].imageTag} running$`));
    const ran = [...pa.steps, ...pb.steps].filter((x: { serverId: string; startedAt: string | null }) => x.serverId === d.serverId && x.startedAt);
    const spans = ran
      .map((x: { startedAt: string; finishedAt: string; log: string }) => {
        // the lock is taken after the step starts: its first log line marks the work on the server
        const first = Date.parse(x.log.split(' ')[0]);
        return [first, Date.parse(x.finishedAt)];
      }).sort((x, y) => x[0] - y[0]);
    expect(spans.length).to.be.at.least(1);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).to.be.at.least(spans[i - 1][1] - 5);
  });

  it('streams the container output live as log events', async () => {
    const d = app.deployments[0];
    const ac = new AbortController();
    const res = await fetch(`${w.svc.url}/api/services/${app.service.id}/deployments/${d.id}/logs/stream?tail=5`, {
      headers: { authorization: `Bearer ${w.admin.token}` }, signal: ac.signal,
    });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    let text = '';
    // the healthcheck's requests keep the httpd writing a line a second
    while (!/event: log\nid: \d+\ndata: \{"stream":"(stdout|stderr)","line":"[^"]*(listening|response:200)/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ac.abort();
    expect(text).to.match(/event: log/);
    expect(text).to.not.include('MODE=direct');
  });

  it('fails the step of an unreachable server with a clear message and rolls back the server that succeeded', async () => {
    const nowhere = await w.s.servers.insert({ environmentId: w.envId, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    const mixed = await addService(w, 'mixed', { servers: ['s1'] });
    await w.s.deployments.create(mixed.service.id, w.envId, { serverId: nowhere.id, containerName: `mixed-${w.tag}-nowhere` });
    const res = await w.admin.post(`/api/services/${mixed.service.id}/deploy?wait=true`, { imageTag: 'v1', strategy: 'parallel' });
    expect(res.body.status, res.text).to.equal('rolled_back');
    const bad = res.body.steps.find((x: { serverId: string }) => x.serverId === nowhere.id);
    const ok = res.body.steps.find((x: { serverId: string }) => x.serverId === w.servers.s1);
    expect(bad.error).to.match(/unreachable/);
    expect(ok.log).to.match(/removed mixed-.* \(it had no previous version\)/);
    const { serverExec } = await import('../../fleet/fleet.js');
    expect((await serverExec('s1', ['docker', 'ps', '-aq', '--filter', `name=^mixed-${w.tag}-s1$`])).trim()).to.equal('');
  });

  it('takes back a container an interrupted direct deploy left aside, with its configuration', async () => {
    const d = app.deployments[1];
    const { serverExec } = await import('../../fleet/fleet.js');
    await serverExec('s2', ['sh', '-c', `docker rename ${d.containerName} ${d.containerName}-stevedore-old && docker stop ${d.containerName}-stevedore-old`]);
    const res = await w.admin.post(`/api/services/${app.service.id}/deployments/${d.id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(res.body.status, res.text).to.equal('succeeded');
    expect(res.body.steps[0].log).to.include('left by an interrupted deploy');
    const inspect = JSON.parse(await serverExec('s2', ['docker', 'inspect', d.containerName]))[0];
    expect(inspect.Config.Env).to.include('MODE=direct');
    expect((await serverExec('s2', ['docker', 'ps', '-aq', '--filter', `name=${d.containerName}-stevedore-old`])).trim()).to.equal('');
  });
});

