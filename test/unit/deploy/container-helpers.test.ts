import { expect } from 'chai';
import { demuxLogs } from '../../../controller/deploy/container-logs.js';
import type Docker from 'dockerode';
import { createOptionsOf } from '../../../controller/deploy/container-options.js';
import { observedFromInspect } from '../../../reconcilers/deployment/observe.js';
import { desired } from '../reconcilers/deployment/desired-fixture.js';
import { healthTimeoutMs } from '../../../reconcilers/deployment/effects/wait-healthy.js';

const frame = (kind: number, text: string) => {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = kind;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
};

describe('container helpers', () => {
  it('splits multiplexed Docker logs into lines with their stream', () => {
    const buf = Buffer.concat([frame(1, 'one\ntwo\n'), frame(2, 'oops\n'), frame(1, 'three')]);
    expect(demuxLogs(buf)).to.deep.equal([
      { stream: 'stdout', line: 'one' }, { stream: 'stdout', line: 'two' }, { stream: 'stderr', line: 'oops' }, { stream: 'stdout', line: 'three' },
    ]);
  });

  it('gives a container its start period plus every retry to become healthy, within bounds', () => {
    expect(healthTimeoutMs({ test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 1, retries: 2, startPeriodSec: 10 })).to.equal(24_000);
    expect(healthTimeoutMs(null, { Interval: 1e9, Timeout: 2e9, Retries: 2, StartPeriod: 1e9 })).to.equal(15_000);
    expect(healthTimeoutMs({ test: ['CMD', 'true'], intervalSec: 300, retries: 10 })).to.equal(600_000);
  });

  it('creates a direct container from the desired spec only: env, ports, binds with config files, restart, healthcheck, labels', () => {
    const d = desired({}, { command: ['sh', '-c', 'x'], env: { A: '1', MULTI: 'a "b" #c\nd' } });
    const o = createOptionsOf(d);
    expect(o.Env).to.deep.equal(['A=1', 'MULTI=a "b" #c\nd']);
    expect(o.Cmd).to.deep.equal(['sh', '-c', 'x']);
    expect(o.HostConfig!.PortBindings).to.deep.equal({ '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '8080' }], '9000/udp': [{ HostPort: '9000' }] });
    expect(o.HostConfig!.Binds).to.deep.equal(['/data:/data', '/opt/stevedore/deployments/web-1/files/etc/web/app.conf:/etc/web/app.conf:ro']);
    expect(o.HostConfig!.RestartPolicy).to.deep.equal({ Name: 'unless-stopped' });
    expect(o.Healthcheck).to.include({ Interval: 2e9, Retries: 3 });
    expect(o.Labels).to.equal(d.labels);
  });
});

describe('restart policy as Docker takes it', () => {
  it('creates the container with the service\'s policy, on-failure with its retry count', () => {
    const policyOf = (restartPolicy: string) => createOptionsOf(desired({}, { restartPolicy })).HostConfig!.RestartPolicy;
    expect(policyOf('no')).to.deep.equal({ Name: 'no' });
    expect(policyOf('always')).to.deep.equal({ Name: 'always' });
    expect(policyOf('on-failure')).to.deep.equal({ Name: 'on-failure' });
    expect(policyOf('on-failure:3')).to.deep.equal({ Name: 'on-failure', MaximumRetryCount: 3 });
  });

  it('reads an inspected container\'s policy back in the written form', () => {
    const read = (RestartPolicy: unknown) => observedFromInspect({
      Id: 'c1', Image: 'sha256:1', Config: { Image: 'x:1', Env: [], Labels: {} }, HostConfig: { RestartPolicy },
      State: { Running: true, Status: 'running', StartedAt: '' }, Mounts: [], NetworkSettings: { Ports: {}, Networks: {} },
    } as unknown as Docker.ContainerInspectInfo).restart;
    expect(read({ Name: 'unless-stopped', MaximumRetryCount: 0 })).to.equal('unless-stopped');
    expect(read({ Name: 'on-failure', MaximumRetryCount: 0 })).to.equal('on-failure');
    expect(read({ Name: 'on-failure', MaximumRetryCount: 3 })).to.equal('on-failure:3');
    expect(read({ Name: '', MaximumRetryCount: 0 })).to.equal('no');
    expect(read(undefined)).to.equal('no');
  });
});

describe('secret scrubbing', () => {
  it('replaces secret values in an error message, longest first, and ignores tiny ones', async () => {
    const { redactSecrets } = await import('../../../controller/crypto/redact.js');
    expect(redactSecrets('bad line DB=hunter2hunter2 and hunter2 x', ['hunter2', 'hunter2hunter2', 'x'], 4)).to.equal('bad line DB=[REDACTED] and [REDACTED] x');
  });
});
