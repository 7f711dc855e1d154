import { expect } from 'chai';
import { canonicalJson, normalizePort, portSyntax } from '../../../../controller/model/desired-container.js';
import { desired } from './desired-fixture.js';

describe('desired container', () => {
  it('renders the whole container: image, env with vars and secrets, ports, volumes, files, restart, healthcheck, labels', () => {
    const d = desired();
    expect(d.image).to.equal('reg:5000/acme/web:v1');
    expect(d.env).to.deep.equal({ GREETING: 'hello world', TOKEN: 's3cret' });
    expect(d.secretKeys).to.deep.equal(['TOKEN']);
    expect(d.ports).to.deep.equal(['127.0.0.1:8080:80/tcp', ':9000:9000/udp']);
    expect(d.files[0]).to.include({ targetPath: '/etc/web/app.conf', hostPath: '/opt/stevedore/deployments/web-1/files/etc/web/app.conf' });
    expect(d.restart).to.equal('unless-stopped');
    expect(d.healthcheck).to.deep.equal({ test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 5, retries: 3, startPeriodSec: 0 });
    expect(d.labels).to.deep.equal({
      'stevedore.managed': 'true', 'stevedore.environment-id': 'env-1', 'stevedore.service-id': 'svc-1',
      'stevedore.deployment-id': 'dep-1', 'stevedore.image-tag': 'v1', 'stevedore.spec-hash': d.specHash,
    });
    expect(d.specHash).to.match(/^[0-9a-f]{64}$/);
  });

  it('hashes the same spec to the same value whatever the order of keys and ports', () => {
    const a = desired({}, { env: { A: '1', B: '2' }, ports: ['80', '8080:80'] });
    const b = desired({}, { env: { B: '2', A: '1' }, ports: ['8080:80/tcp', '0.0.0.0::80'] });
    expect(a.specHash).to.equal(b.specHash);
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).to.equal('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('changes the hash with any part of the spec: env, a secret, ports, a file content, the tag', () => {
    const base = desired().specHash;
    expect(desired({}, { env: { GREETING: 'hi' } }).specHash).to.not.equal(base);
    expect(desired({ sources: { vars: { NAME: 'world' }, secrets: { API_TOKEN: 'rotated' } } }).specHash).to.not.equal(base);
    expect(desired({}, { ports: ['8081:80'] }).specHash).to.not.equal(base);
    expect(desired({ files: [{ attachmentId: 'att-1', configFileName: 'app.conf', targetPath: '/etc/web/app.conf', mode: 0o644, content: Buffer.from('listen 81\n') }] }).specHash).to.not.equal(base);
    expect(desired({ imageTag: 'v2' }).specHash).to.not.equal(base);
    expect(desired({ mode: 'compose-generated' }).specHash, 'the mode is how, not what').to.equal(base);
  });

  it('renders the restart policy; the default unless-stopped keeps the spec hash containers carried before the field', () => {
    // the hash of this fixture before restartPolicy existed (main at 5c00578): no container is recreated by the upgrade
    const before = '2898e6242f8708c8c93bc024e15d3b36dc1d2d7291daeda3a76e7ab7b18c73e0';
    expect(desired().specHash).to.equal(before);
    expect(desired({}, { restartPolicy: 'unless-stopped' })).to.deep.include({ restart: 'unless-stopped', specHash: before });
    const hashes = new Set([before]);
    for (const policy of ['no', 'always', 'on-failure', 'on-failure:3']) {
      const d = desired({}, { restartPolicy: policy });
      expect(d.restart).to.equal(policy);
      hashes.add(d.specHash);
    }
    expect(hashes.size, 'each policy is another spec').to.equal(5);
    expect(desired({ mode: 'compose-generated' }, { composeTemplate: 'services: {}', restartPolicy: 'always' }).restart, 'the template decides').to.equal(null);
  });

  it('leaves to a compose template what it shapes, and to a hand-written file everything but the image', () => {
    const t = desired({ mode: 'compose-generated' }, { composeTemplate: 'services: {}' });
    expect([t.ports, t.volumes, t.command, t.restart, t.healthcheck]).to.deep.equal([null, null, null, null, null]);
    expect(t.env).to.deep.equal({ GREETING: 'hello world', TOKEN: 's3cret' });
    const e = desired({ mode: 'compose-external' });
    expect(e.env).to.equal(null);
    expect(e.mountFiles).to.equal(false);
  });

  it('normalises ports and writes them back in the short syntax', () => {
    expect(normalizePort('8080:80')).to.equal(':8080:80/tcp');
    expect(normalizePort('0.0.0.0:8080:80/udp')).to.equal(':8080:80/udp');
    expect(normalizePort('80')).to.equal('::80/tcp');
    for (const p of ['8080:80/tcp', '127.0.0.1:8080:80/tcp', '80/tcp', '[::1]:8080:80/tcp']) expect(portSyntax(normalizePort(p))).to.equal(p);
  });
});
