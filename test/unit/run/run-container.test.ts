// A one-off run's container is rendered from the deployment's desired container but is never
// taken for it: every place that tells a deployment's container by its ownership labels (the
// deployment's observation and plan, exec's target check, the Docker events' deployment key)
// sees a run container as not the deployment's own.
import { expect } from 'chai';
import type Docker from 'dockerode';
import { renderDesired } from '../../../reconcilers/deployment/desired.js';
import { observedFromInspect } from '../../../reconcilers/deployment/observe.js';
import { ownershipConflict } from '../../../reconcilers/deployment/plan.js';
import { demuxTail, runContainerName, runCreateOptions } from '../../../reconcilers/run/run-container.js';
import { notOwnedReason } from '../../../controller/deploy/container-exec.js';
import { LABEL } from '../../../controller/model/desired-container.js';

describe('one-off run containers', () => {
  const desired = renderDesired({
    service: {
      id: 'svc', name: 'web', environmentId: 'env', env: { GREETING: 'hi', TOKEN: '${TOKEN}' }, ports: ['8080:80'], volumes: ['/srv/data:/data'],
      command: ['serve'], healthCheck: { test: ['CMD', 'true'] } as never, composeTemplate: null,
    },
    deployment: { id: 'd1', containerName: 'web-1', serverId: 'srv' }, serverName: 's1', imageName: 'reg/web', imageTag: 'v3',
    mode: 'direct', sources: { vars: {}, secrets: { TOKEN: 's3cr3t' } }, files: [], hashKey: Buffer.alloc(32, 1),
  });
  const runId = '0123abcd-0000-4000-8000-000000000000';
  const o = runCreateOptions(desired, runId, ['sh', '-c', 'echo $TOKEN']);

  it('has the revision\'s image, env and volumes with the run\'s command, and none of the service\'s ports, restart or healthcheck', () => {
    expect(o.name).to.equal('web-1-run-0123abcd').and.equal(runContainerName('web-1', runId));
    expect(o.Image).to.equal('reg/web:v3');
    expect(o.Cmd).to.deep.equal(['sh', '-c', 'echo $TOKEN']);
    expect(o.Env).to.include.members(['GREETING=hi', 'TOKEN=s3cr3t']);
    expect(o.HostConfig?.Binds).to.deep.equal(['/srv/data:/data']);
    expect(o.HostConfig?.PortBindings).to.equal(undefined);
    expect(o.ExposedPorts).to.deep.equal({});
    expect(o.HostConfig?.RestartPolicy).to.deep.equal({ Name: 'no' });
    expect(o.Healthcheck).to.equal(undefined);
  });

  it('carries the run label and no deployment label, so nothing takes it for the deployment\'s container', () => {
    expect(o.Labels).to.deep.equal({ [LABEL.managed]: 'true', [LABEL.environment]: 'env', [LABEL.service]: 'svc', [LABEL.run]: runId });
    const inspected = { Id: 'c0ffee', Name: `/${o.name}`, Config: { Labels: o.Labels, Image: o.Image, Env: o.Env }, State: { Running: true, Status: 'running' }, HostConfig: {}, Mounts: [] } as unknown as Docker.ContainerInspectInfo;
    const owner = observedFromInspect(inspected).owner;
    expect(owner.deploymentId).to.equal(null);
    // a deploy that met it under the deployment's name would refuse it, never replace or adopt it
    expect(ownershipConflict(desired, owner, 'web-1', 'c0ffee')).to.be.a('string');
    // exec never enters it as the deployment's container
    expect(notOwnedReason({ id: 'd1', environmentId: 'env', composePath: null, adoptedContainerId: null }, o.Labels!, 'c0ffee')).to.equal('belongs to another deployment');
  });

  it('keeps the last bytes of the multiplexed log, stdout and stderr as they came', () => {
    const frame = (stream: number, text: string) => {
      const body = Buffer.from(text);
      const head = Buffer.alloc(8);
      head[0] = stream;
      head.writeUInt32BE(body.length, 4);
      return Buffer.concat([head, body]);
    };
    const raw = Buffer.concat([frame(1, 'one\n'), frame(2, 'two\n'), frame(1, 'three\n')]);
    expect(demuxTail(raw)).to.equal('one\ntwo\nthree\n');
    expect(demuxTail(raw, 6)).to.equal('three\n');
  });
});
