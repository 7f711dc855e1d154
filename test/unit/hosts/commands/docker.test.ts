import { expect } from 'chai';
import * as docker from '../../../../controller/hosts/commands/docker.js';
import { toShellLine } from '../../../../controller/hosts/shell-quote.js';

const line = (argv: string[]) => toShellLine(argv);

describe('docker commands', () => {
  it('ps filters by sorted labels and prints one JSON object per line', () => {
    expect(line(docker.ps({ all: true, labels: { 'stevedore.service': 'web', 'stevedore.environment': 'prod' } }))).to.equal(
      "docker ps --all --filter label=stevedore.environment=prod --filter label=stevedore.service=web --no-trunc --format '{{json .}}'");
  });

  it('run puts every option before the image and keeps hostile env values literal', () => {
    expect(line(docker.run({
      name: 'web-1', image: 'reg:5000/web:v1', labels: { 'stevedore.service': 'web' },
      env: { B: '$(touch /tmp/pwned)', A: "it's" }, publish: ['8080:80'], restart: 'unless-stopped',
    }))).to.equal("docker run --detach --name web-1 --label stevedore.service=web --env 'A=it'\\''s' " +
      "--env 'B=$(touch /tmp/pwned)' --publish 8080:80 --restart unless-stopped reg:5000/web:v1");
  });

  it('run passes the command after the image', () => {
    expect(line(docker.run({ name: 'x1', image: 'busybox', detach: false, command: ['sh', '-c', 'echo a; echo b'] })))
      .to.equal("docker run --name x1 busybox sh -c 'echo a; echo b'");
  });

  it('stop, rm and logs end options with -- before the id', () => {
    expect(line(docker.stop('web-1', 5))).to.equal('docker stop --time 5 -- web-1');
    expect(line(docker.rm('web-1', { force: true, volumes: true }))).to.equal('docker rm --force --volumes -- web-1');
    expect(line(docker.logs('web-1', { tail: 100, timestamps: true }))).to.equal('docker logs --tail 100 --timestamps -- web-1');
  });

  it('inspect, pull and image prune', () => {
    expect(line(docker.inspect('a', 'b'))).to.equal('docker inspect -- a b');
    expect(line(docker.inspectFormat('{{.State.Health.Status}}', 'web-1'))).to.equal("docker inspect --format '{{.State.Health.Status}}' -- web-1");
    expect(line(docker.pull('reg:5000/web:v2'))).to.equal('docker pull --quiet reg:5000/web:v2');
    expect(line(docker.imagePrune({ all: true, untilHours: 24 }))).to.equal('docker image prune --force --all --filter until=24h');
  });

  it('login reads the password from stdin, never from argv', () => {
    expect(line(docker.loginPasswordStdin('reg:5000', 'ci'))).to.equal('docker login --username ci --password-stdin reg:5000');
  });
});
