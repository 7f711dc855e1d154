import { expect } from 'chai';
import { parse } from 'yaml';
import { composeFilesOf } from '../../../controller/deploy/compose/generate-compose.js';
import { desired } from '../reconcilers/deployment/desired-fixture.js';

const PATH = '/opt/stevedore/deployments/web-1/docker-compose.yml';
const files = (over: Parameters<typeof desired>[1] = {}, template: string | null = null) =>
  composeFilesOf(desired({ mode: 'compose-generated' }, { ...over, composeTemplate: template }), PATH, template);

describe('compose files from the desired container', () => {
  it('keys the service exactly by containerName with image, ports, volumes, file mounts, restart and healthcheck', () => {
    const doc = parse(files().compose.content);
    expect(Object.keys(doc.services)).to.deep.equal(['web-1']);
    const s = doc.services['web-1'];
    expect(s.image).to.equal('reg:5000/acme/web:v1');
    expect(s.container_name).to.equal('web-1');
    expect(s.ports).to.deep.equal(['127.0.0.1:8080:80/tcp', '9000:9000/udp']);
    expect(s.volumes).to.deep.equal(['/data:/data', '/opt/stevedore/deployments/web-1/files/etc/web/app.conf:/etc/web/app.conf:ro']);
    expect(s.restart).to.equal('unless-stopped');
    expect(s.healthcheck).to.deep.equal({ test: ['CMD', 'true'], interval: '2s', timeout: '5s', retries: 3, start_period: '0s' });
    expect(s.labels).to.include({ 'stevedore.managed': 'true', 'stevedore.deployment-id': 'dep-1', 'stevedore.environment-id': 'env-1' });
    expect(s.labels['stevedore.spec-hash']).to.match(/^[0-9a-f]{64}$/);
  });

  it('writes the service\'s restart policy as compose takes it, "no" quoted for docker-compose v1 (YAML 1.1)', () => {
    const restartOf = (restartPolicy: string) => files({ restartPolicy }).compose.content.match(/^ {4}restart: (.*)$/m)![1];
    expect(restartOf('no')).to.equal('"no"');
    expect(parse(files({ restartPolicy: 'no' }).compose.content).services['web-1'].restart).to.equal('no');
    expect(restartOf('always')).to.equal('always');
    expect(restartOf('on-failure:3')).to.equal('on-failure:3');
  });

  it('keeps every env value out of the compose document and in a second compose file', () => {
    const f = files();
    expect(f.compose.content).to.not.include('s3cret');
    expect(parse(f.compose.content).services['web-1'].environment).to.equal(undefined);
    expect(f.env.path).to.equal('/opt/stevedore/deployments/web-1/docker-compose.stevedore-env.yml');
    expect(parse(f.env.content)).to.deep.equal({ services: { 'web-1': { environment: { GREETING: 'hello world', TOKEN: 's3cret' } } } });
    expect(parse(f.env.redacted).services['web-1'].environment.TOKEN).to.equal('[REDACTED]');
  });

  it('writes values with quotes, " #", backslashes and newlines literally and escapes $ for compose', () => {
    const tricky = `"quoted" #hash 'single' back\\slash $HOME \${X} line1\nline2`;
    const f = files({ env: { TRICKY: tricky, NUM: '8080', BOOL: 'true' } });
    const env = parse(f.env.content).services['web-1'].environment;
    expect(env.TRICKY).to.equal(tricky.replace(/\$/g, '$$$$'));
    expect(env.NUM).to.equal('8080');
    expect(env.BOOL).to.equal('true');
  });

  it('from a template: keeps what it shapes, sets image, labels and file mounts, never its env values', () => {
    const template = 'services:\n  "{{containerName}}":\n    image: x\n    ports: ["1:1"]\n    environment:\n      PASSWORD: hunter2hunter2\n    labels:\n      stevedore.deployment-id: forged\n      team: a\n';
    const out = files({}, template).compose.content;
    expect(out).to.not.include('hunter2hunter2');
    const s = parse(out).services['web-1'];
    expect(s.image).to.equal('reg:5000/acme/web:v1');
    expect(s.ports).to.deep.equal(['1:1']);
    expect(s.labels).to.include({ 'stevedore.deployment-id': 'dep-1', team: 'a' });
    expect(s.volumes).to.deep.equal(['/opt/stevedore/deployments/web-1/files/etc/web/app.conf:/etc/web/app.conf:ro']);
  });

  it('refuses a template that does not define a service keyed by containerName', () => {
    expect(() => files({}, 'services:\n  web:\n    image: x\n')).to.throw(/does not define a service keyed "web-1" \(found: web\)/);
  });
});
