import { expect } from 'chai';
import {
  assertContainerPolicy, bindSourcesOf, containerPolicyRefusals, ownDirOf, policyOfSettings, requestOfSpec, resolvedPathRefusals, type ContainerPolicy,
} from '../../../controller/deploy/container-policy.js';

const baseline: ContainerPolicy = { containerPolicy: 'baseline', allowedHostPaths: [] };
const privileged: ContainerPolicy = { containerPolicy: 'privileged', allowedHostPaths: [] };
const own = ownDirOf('api');
const volumes = (list: string[], policy = baseline) => containerPolicyRefusals({ volumes: list, ownDir: own }, policy);
const template = (yaml: string, policy = baseline) => containerPolicyRefusals(requestOfSpec({ composeTemplate: yaml }, 'api'), policy);

describe('container policy (baseline and privileged)', () => {
  it("refuses the issue's attack: / and the Docker socket as bind-mount sources, naming the field and the policy", () => {
    const out = volumes(['/:/host', '/var/run/docker.sock:/var/run/docker.sock']);
    expect(out.map((r) => r.field)).to.deep.equal(['volumes.0', 'volumes.1']);
    expect(out[0].message).to.equal("volumes.0: the host path / is the server's whole filesystem; the container policy baseline of this environment refuses it");
    expect(out[1].message).to.include('the Docker socket').and.include('container policy baseline');
    expect(() => assertContainerPolicy({ volumes: ['/:/host'], ownDir: own }, baseline)).to.throw('container policy baseline')
      .with.property('field', 'volumes.0');
  });

  it('refuses every sensitive path, anything inside it and any parent of it, however it is written', () => {
    for (const src of ['/', '//', '/./', '/etc', '/etc/', '/etc//shadow', '/root/.ssh', '/home', '/home/u/.ssh', '/boot', '/proc/1/root', '/sys/kernel',
      '/dev/sda', '/var/lib/docker/volumes/x', '/var/run/docker.sock', '/run/docker.sock', '/var/run', '/run', '/var', '/var/lib', '/opt',
      '/srv/../etc', '/srv/../../', '/run/containerd/containerd.sock', '/opt/stevedore', '/opt/stevedore/deployments/other/files']) {
      expect(volumes([`${src}:/x`]), src).to.have.length(1);
    }
  });

  it('allows other host paths, named and anonymous volumes, and the deployment\'s own directory', () => {
    expect(volumes(['/srv/app:/data', '/srv/etc:/x:ro', '/var/lib/app:/d', '/data/run:/r', 'data:/data', '/anonymous', './files:/f', '/etcetera:/e',
      `${own}/data:/d`, '/opt/app:/o'])).to.deep.equal([]);
  });

  it('privileged allows everything; allowedHostPaths allows listed prefixes under baseline', () => {
    expect(volumes(['/:/host', '/var/run/docker.sock:/s'], privileged)).to.deep.equal([]);
    const withSocket = { ...baseline, allowedHostPaths: ['/var/run/docker.sock', '/home/ci/'] };
    expect(volumes(['/var/run/docker.sock:/s', '/home/ci/cache:/c'], withSocket)).to.deep.equal([]);
    expect(volumes(['/run/docker.sock:/s', '/home/other:/o', '/home/cix:/x'], withSocket).map((r) => r.field)).to.deep.equal(['volumes.0', 'volumes.1', 'volumes.2']);
  });

  it('refuses in a compose template every field that reaches the server', () => {
    const doc = `
services:
  api:
    image: x
    privileged: true
    network_mode: host
    pid: host
    ipc: host
    cap_add: [NET_BIND_SERVICE, SYS_ADMIN, cap_net_admin]
    devices: ['/dev/fuse:/dev/fuse']
    security_opt: ['no-new-privileges:true', 'seccomp:unconfined', 'apparmor=unconfined', 'label:disable']
    volumes:
      - /:/host
      - data:/data
      - type: bind
        source: /var/run/docker.sock
        target: /s
      - type: volume
        source: other
        target: /o
      - ./../../../../etc:/e
      - ~/.ssh:/k
      - \${HOME}:/h
    env_file: /root/.env
    volumes_from: ['container:db-of-another-env']
volumes:
  sneaky:
    driver: local
    driver_opts: { type: none, o: bind, device: / }
secrets:
  shadow:
    file: /etc/shadow
`;
    const where = template(doc).map((r) => r.message.split(':').slice(0, 2).join(':'));
    expect(where).to.deep.equal([
      'composeTemplate: services.api.privileged', 'composeTemplate: services.api.network_mode', 'composeTemplate: services.api.pid',
      'composeTemplate: services.api.ipc', 'composeTemplate: services.api.cap_add.1', 'composeTemplate: services.api.cap_add.2',
      'composeTemplate: services.api.devices', 'composeTemplate: services.api.security_opt.1', 'composeTemplate: services.api.security_opt.2',
      'composeTemplate: services.api.security_opt.3', 'composeTemplate: services.api.volumes.0', 'composeTemplate: services.api.volumes.2.source',
      'composeTemplate: services.api.volumes.4', 'composeTemplate: services.api.volumes.5', 'composeTemplate: services.api.volumes.6',
      'composeTemplate: services.api.volumes_from.0', 'composeTemplate: services.api.env_file.0', 'composeTemplate: volumes.sneaky.driver_opts.device',
      'composeTemplate: secrets.shadow.file',
    ]);
    expect(template(doc).every((r) => r.field === 'composeTemplate' && r.message.endsWith('the container policy baseline of this environment refuses it'))).to.equal(true);
    expect(template(doc, privileged)).to.deep.equal([]);
  });

  it('sees through YAML merge keys, interpolation and string booleans, as compose reads them', () => {
    const out = template(`
x-danger: &danger { privileged: "yes", network_mode: "\${NET}" }
services:
  api:
    <<: *danger
    image: x
  sidecar:
    image: y
    pid: "container:other"
    extends: { file: /etc/other.yml, service: z }
include: [/srv/more.yml]
`).map((r) => r.message.split(':').slice(0, 2).join(':'));
    expect(out).to.deep.equal(['composeTemplate: include', 'composeTemplate: services.api.privileged', 'composeTemplate: services.api.network_mode',
      'composeTemplate: services.sidecar.pid', 'composeTemplate: services.sidecar.extends.file']);
  });

  it('allows an ordinary template: default capabilities, confinement options, named volumes and paths of its own', () => {
    expect(template(`
services:
  api:
    image: x
    privileged: false
    network_mode: bridge
    cap_add: [NET_BIND_SERVICE, CAP_CHOWN]
    cap_drop: [ALL]
    security_opt: ['no-new-privileges:true']
    volumes: ['data:/data', './conf:/etc/app:ro', '/srv/app:/srv', { type: tmpfs, target: /tmp }]
    env_file: ./app.env
volumes:
  data: {}
`)).to.deep.equal([]);
  });

  it('a template token filled at render can name a refused path (checked again when the plan renders)', () => {
    const t = 'services:\n  api:\n    image: x\n    volumes: ["/{{imageTag}}:/h"]\n';
    expect(containerPolicyRefusals(requestOfSpec({ composeTemplate: t }, 'api'), baseline)).to.deep.equal([]);
    expect(containerPolicyRefusals(requestOfSpec({ composeTemplate: t }, 'api', { image: 'x:etc', imageTag: 'etc' }), baseline)).to.have.length(1);
  });

  it('reads the policy from the operations settings, baseline unless privileged is set', () => {
    expect(policyOfSettings(undefined)).to.deep.include({ containerPolicy: 'baseline', allowedHostPaths: [] });
    expect(policyOfSettings({ containerPolicy: 'privileged' })).to.deep.include({ containerPolicy: 'privileged' });
    expect(policyOfSettings({ containerPolicy: 'nonsense' as never, allowedHostPaths: ['/srv', 'relative' as string] })).to.deep.include({ containerPolicy: 'baseline', allowedHostPaths: ['/srv'] });
    const withState = policyOfSettings({}, [{ path: '/var/lib/stevedore-state', why: 'state' }]);
    expect(containerPolicyRefusals({ volumes: ['/var/lib/stevedore-state/secrets.key:/k'], ownDir: own }, withState)).to.have.length(1);
  });

  it('looks again at the bind sources it allowed once the server resolved their symlinks', () => {
    const req = { ...requestOfSpec({ composeTemplate: 'services:\n  api:\n    image: x\n    volumes: ["./conf:/c", "/srv/data/link:/host"]\n' }, 'api'),
      volumes: ['/srv/app:/a', 'named:/n'] };
    const binds = bindSourcesOf(req, baseline);
    expect(binds).to.deep.equal([
      { field: 'volumes.0', where: 'volumes.0', path: '/srv/app' },
      { field: 'composeTemplate', where: 'services.api.volumes.0', path: `${own}/conf` },
      { field: 'composeTemplate', where: 'services.api.volumes.1', path: '/srv/data/link' },
    ]);
    expect(bindSourcesOf(req, privileged)).to.deep.equal([]);
    expect(resolvedPathRefusals(binds, ['/srv/app', `${own}/conf`, '/srv/data/real'], baseline, own)).to.deep.equal([]);
    const out = resolvedPathRefusals(binds, ['/srv/app', `${own}/conf`, '/'], baseline, own);
    expect(out).to.deep.equal([{
      field: 'composeTemplate',
      message: "composeTemplate: services.api.volumes.1: the host path /srv/data/link (a symlink to / on the server) is the server's whole filesystem; the container policy baseline of this environment refuses it",
    }]);
    expect(resolvedPathRefusals(binds, ['/var/run/docker.sock'], baseline, own).map((r) => r.field)).to.deep.equal(['volumes.0', 'composeTemplate', 'composeTemplate']);
    expect(resolvedPathRefusals(binds, ['/var/run/docker.sock', `${own}/conf`, '/srv/x'], { ...baseline, allowedHostPaths: ['/var/run/docker.sock'] }, own)).to.deep.equal([]);
    expect(volumes(['/srv/a\nb:/x'])).to.have.length(1);
  });
});
