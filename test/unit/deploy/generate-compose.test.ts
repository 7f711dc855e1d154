import { expect } from 'chai';
import { parse } from 'yaml';
import { generateCompose, type ComposeInput } from '../../../controller/deploy/compose/generate-compose.js';
import { envFileContent, renderEnv } from '../../../controller/deploy/compose/render-env.js';

const input = (over: Partial<ComposeInput['service']> = {}): ComposeInput => ({
  service: {
    id: 'svc-1', environmentId: 'env-1', name: 'web', ports: ['127.0.0.1:8080:80'], volumes: ['/data:/data'],
    command: null, healthCheck: { test: ['CMD', 'true'], intervalSec: 2, timeoutSec: 1, retries: 2, startPeriodSec: 0 },
    composeTemplate: null, ...over,
  },
  deployment: { id: 'dep-1', containerName: 'web-1' },
  image: 'reg:5000/acme/web:v2', imageTag: 'v2', envFile: '.stevedore.env', envHash: 'abc',
});

describe('compose generator', () => {
  it('keys the service exactly by containerName with image, ports, volumes, restart and healthcheck', () => {
    const doc = parse(generateCompose(input()));
    expect(Object.keys(doc.services)).to.deep.equal(['web-1']);
    const s = doc.services['web-1'];
    expect(s.image).to.equal('reg:5000/acme/web:v2');
    expect(s.container_name).to.equal('web-1');
    expect(s.ports).to.deep.equal(['127.0.0.1:8080:80']);
    expect(s.volumes).to.deep.equal(['/data:/data']);
    expect(s.restart).to.equal('unless-stopped');
    expect(s.healthcheck).to.deep.equal({ test: ['CMD', 'true'], interval: '2s', timeout: '1s', retries: 2, start_period: '0s' });
  });

  it('labels the container as owned by the deployment and points at the env file', () => {
    const s = parse(generateCompose(input())).services['web-1'];
    expect(s.labels).to.include({ 'stevedore.managed': 'true', 'stevedore.deployment-id': 'dep-1', 'stevedore.service-id': 'svc-1', 'stevedore.env-hash': 'abc' });
    expect(s.env_file).to.deep.equal(['.stevedore.env']);
    expect(s.environment).to.equal(undefined);
  });

  it('never writes an env value into the compose document, even from a template that has one', () => {
    const template = 'services:\n  "{{containerName}}":\n    image: x\n    environment:\n      PASSWORD: hunter2hunter2\n';
    const out = generateCompose(input({ composeTemplate: template }));
    expect(out).to.not.include('hunter2hunter2');
    expect(parse(out).services['web-1'].image).to.equal('reg:5000/acme/web:v2');
  });

  it('refuses a template that does not define a service keyed by containerName', () => {
    expect(() => generateCompose(input({ composeTemplate: 'services:\n  web:\n    image: x\n' })))
      .to.throw(/does not define a service keyed "web-1" \(found: web\)/);
  });

  it('replaces stevedore labels a template tries to set', () => {
    const template = 'services:\n  web-1:\n    labels:\n      stevedore.deployment-id: forged\n      team: a\n';
    const s = parse(generateCompose(input({ composeTemplate: template }))).services['web-1'];
    expect(s.labels['stevedore.deployment-id']).to.equal('dep-1');
    expect(s.labels.team).to.equal('a');
  });
});

describe('env rendering', () => {
  it('resolves placeholders from vars and secrets and marks secret-bearing keys', () => {
    const r = renderEnv({ DB_URL: 'postgres://app:${DB_PASS}@db/${DB_NAME}', MODE: 'prod', X: '${NOPE}' },
      { vars: { DB_NAME: 'main' }, secrets: { DB_PASS: 's3cret-value' } });
    expect(r.values.DB_URL).to.equal('postgres://app:s3cret-value@db/main');
    expect(r.secretKeys).to.deep.equal(['DB_URL']);
    expect(r.unresolved).to.deep.equal(['NOPE']);
    expect(envFileContent(r, true)).to.equal('DB_URL=[REDACTED]\nMODE=prod\nX=${NOPE}\n');
  });

  it('refuses a value with a newline, which an env file cannot hold', () => {
    expect(() => envFileContent(renderEnv({ A: 'x\ny' }, { vars: {}, secrets: {} }))).to.throw(/newline/);
  });
});
