// The export of a hand-run container as manifests (pure): what Docker reports becomes a Service
// adopting it by id; secret-looking env becomes SOPS placeholders, never values.
import { expect } from 'chai';
import type Docker from 'dockerode';
import { parseAllDocuments } from 'yaml';
import { containerToManifests, splitImage, SOPS_PLACEHOLDER, toYamlStream } from '../../../controller/manifests/export.js';

const ID = 'f'.repeat(64);
const image = { Config: { Env: ['PATH=/usr/bin', 'LANG=C'], Cmd: ['sh'], Entrypoint: null, Labels: { maintainer: 'x' } } } as unknown as Docker.ImageInspectInfo;
const container = (over: Record<string, any> = {}) => ({
  Id: ID, Name: '/shop', Image: 'sha256:1',
  Config: { Image: 'reg:5000/acme/shop:1.2', Env: ['PATH=/usr/bin', 'LANG=C', 'MODE=prod', 'DB_PASSWORD=hunter2', 'DATABASE_URL=postgres://app:pw123@db/app'], Cmd: ['sleep', '3600'], Entrypoint: null, Labels: { maintainer: 'x' } },
  HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '', HostPort: '18080' }], '53/udp': [{ HostIp: '127.0.0.1', HostPort: '5353' }] }, RestartPolicy: { Name: 'unless-stopped' } },
  Mounts: [{ Type: 'volume', Name: 'shop-data', Destination: '/data', RW: true }, { Type: 'bind', Source: '/srv/conf', Destination: '/conf', RW: false }],
  NetworkSettings: { Networks: { bridge: {} } },
  ...over,
}) as unknown as Docker.ContainerInspectInfo;

describe('manifests export (adopting a hand-run container)', () => {
  it('writes image, tag, env, ports, volumes and command as Docker reports them, adopting the container by id', () => {
    const out = containerToManifests(container(), image, { environment: 'prod', serverName: 's1', imageNames: new Map() });
    expect(out.image).to.deep.equal({ name: 'shop', imageName: 'reg:5000/acme/shop' });
    expect(out.service.body.spec).to.deep.equal({
      image: 'shop', imageTag: '1.2',
      env: { DATABASE_URL: '${SHOP_DATABASE_URL}', DB_PASSWORD: '${SHOP_DB_PASSWORD}', MODE: 'prod' },
      ports: ['127.0.0.1:5353:53/udp', '18080:80/tcp'],
      volumes: ['/srv/conf:/conf:ro', 'shop-data:/data'],
      command: ['sleep', '3600'],
      deployments: [{ server: 's1', containerName: 'shop', adoptContainerId: ID }],
    });
    expect(out.service.comments.filter((c) => c.startsWith('note:'))).to.deep.equal([]);
  });

  it('never writes a secret value: secret-looking keys and URLs with a password become SOPS placeholders', () => {
    const out = containerToManifests(container(), image, { environment: 'prod', serverName: 's1', imageNames: new Map() });
    expect(out.secrets.map((x) => [x.body.metadata.name, x.body.spec.value])).to.deep.equal([
      ['SHOP_DATABASE_URL', SOPS_PLACEHOLDER], ['SHOP_DB_PASSWORD', SOPS_PLACEHOLDER],
    ]);
    const text = toYamlStream([], [...out.secrets, out.service]);
    expect(text).to.not.include('hunter2').and.not.include('pw123');
    expect(parseAllDocuments(text).map((d) => d.toJS().kind)).to.deep.equal(['Secret', 'Secret', 'Service']);
  });

  it('says what a rollout would change: untagged image, entrypoint, networks, labels, a restart policy a service cannot hold', () => {
    const c = container({
      Config: { ...container().Config, Image: 'busybox', Entrypoint: ['/bin/sh', '-c'], Labels: { maintainer: 'x', team: 'a' } },
      HostConfig: { PortBindings: {}, RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 20000 } },
      NetworkSettings: { Networks: { bridge: {}, shopnet: {} } },
    });
    const out = containerToManifests(c, image, { environment: 'prod', serverName: 's1', imageNames: new Map() });
    const notes = out.service.comments.join('\n');
    for (const part of ['without a tag', 'restart policy is "on-failure:20000"', 'entrypoint', 'shopnet', 'team']) expect(notes).to.include(part);
    expect(out.service.body.spec).to.not.have.property('restartPolicy');
  });

  it('reads the restart policy back as restartPolicy (left out when unless-stopped, the default)', () => {
    const policyOf = (RestartPolicy: unknown) => containerToManifests(container({ HostConfig: { PortBindings: {}, RestartPolicy } }), image,
      { environment: 'prod', serverName: 's1', imageNames: new Map() });
    for (const [policy, written] of [
      [{ Name: 'no' }, 'no'], [{ Name: '' }, 'no'], [{ Name: 'always' }, 'always'],
      [{ Name: 'on-failure', MaximumRetryCount: 0 }, 'on-failure'], [{ Name: 'on-failure', MaximumRetryCount: 3 }, 'on-failure:3'],
    ] as const) {
      const out = policyOf(policy);
      expect(out.service.body.spec.restartPolicy, JSON.stringify(policy)).to.equal(written);
      expect(out.service.comments.join('\n')).to.not.include('restart policy');
    }
    expect(policyOf({ Name: 'unless-stopped' }).service.body.spec).to.not.have.property('restartPolicy');
  });

  it('escapes ${env:…} so the manifest loader keeps the text, and splits image references', () => {
    expect(toYamlStream([], [{ comments: [], body: { apiVersion: 'v', kind: 'Var', metadata: { name: 'A' }, spec: { value: '${env:HOME}' } } }])).to.include('$${env:HOME}');
    expect(splitImage('reg:5000/a/b:1')).to.deep.equal({ name: 'reg:5000/a/b', tag: '1', digest: false });
    expect(splitImage('reg:5000/a/b')).to.deep.equal({ name: 'reg:5000/a/b', tag: null, digest: false });
    expect(splitImage('b@sha256:00')).to.deep.equal({ name: 'b', tag: null, digest: true });
  });
});
