import { expect } from 'chai';
import { renderDesired } from '../../reconcilers/deployment/desired.js';
import type { DesiredContainer } from '../../controller/model/desired-container.js';
import {
  revisionChanges, revisionHash, revisionSpecOf, secretVersion, serviceAtRevision, specOfRevision, templateOf, unifiedRevisionDiff, type RevisionInput,
} from '../../reconcilers/service/revision-spec.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';

describe('revision specs', () => {
  const hashKey = Buffer.alloc(32, 7);
  const service = {
    id: 'svc', name: 'web', environmentId: 'env', env: { GREETING: 'hi ${WHO}', DB_URL: 'postgres://app:${DB_PASSWORD}@db/app' }, ports: ['8080:80'],
    volumes: [], command: null, healthCheck: null, composeTemplate: null, updateOrder: 'stop-first' as const, drainSec: 5,
  };
  const secrets = { DB_PASSWORD: 'hunter2-very-secret', UNUSED: 'never-referenced' };
  const vars = { WHO: 'world' };
  const rendered = (tag: string, sec = secrets, svc: typeof service & { restartPolicy?: string } = service): DesiredContainer => renderDesired({
    service: svc, deployment: { id: 'd1', containerName: 'web', serverId: 'srv' }, serverName: 's1', imageName: 'reg/web', imageTag: tag,
    mode: 'direct', sources: { vars, secrets: sec }, files: [], hashKey,
  });
  const input = (tag: string, sec = secrets): RevisionInput => ({
    image: { containerImageId: 'img', name: 'reg/web', tag }, template: templateOf(service as unknown as ServiceRow), files: [],
    vars, secrets: sec, hashKey, rendered: [rendered(tag, sec)],
  });

  it('keeps every secret as a reference and a version, never its value, and renders vars', () => {
    const spec = revisionSpecOf(input('v1'));
    const text = JSON.stringify(spec);
    expect(text).to.not.include('hunter2');
    expect(text).to.not.include('never-referenced');
    const version = secretVersion(hashKey, secrets.DB_PASSWORD);
    expect(version).to.match(/^v[0-9a-f]{12}$/);
    expect(spec.secrets).to.deep.equal({ DB_PASSWORD: version });
    expect(spec.deployments[0].env).to.deep.equal({ GREETING: 'hi world', DB_URL: `postgres://app:\${secret:DB_PASSWORD@${version}}@db/app` });
    // the template as written: placeholders stay placeholders
    expect(spec.template.env.DB_URL).to.equal('postgres://app:${DB_PASSWORD}@db/app');
    expect(spec.deployments[0].specHash).to.equal(rendered('v1').specHash);
  });

  it('hashes equal specs equally and a rotated secret differently', () => {
    expect(revisionHash(revisionSpecOf(input('v1')))).to.equal(revisionHash(revisionSpecOf(input('v1'))));
    const rotated = revisionSpecOf(input('v1', { ...secrets, DB_PASSWORD: 'rotated' }));
    expect(revisionHash(rotated)).to.not.equal(revisionHash(revisionSpecOf(input('v1'))));
  });

  it('names changed paths: the tag, one env key, a changed secret as a new version (no value)', () => {
    const a = revisionSpecOf(input('v1'));
    const b = revisionSpecOf(input('v2', { ...secrets, DB_PASSWORD: 'rotated-value' }));
    const changes = revisionChanges(a, b);
    const paths = changes.map((c) => c.path);
    expect(paths).to.include.members(['image.tag', 'secrets.DB_PASSWORD', 'deployments.s1/web.image', 'deployments.s1/web.env.DB_URL']);
    expect(paths).to.not.include('template.env.DB_URL');
    // the spec hash moves with every change and is not a change of its own
    expect(paths.some((p) => p.endsWith('specHash'))).to.equal(false);
    expect(JSON.stringify(changes)).to.not.include('rotated-value').and.not.include('hunter2');
    expect(changes.find((c) => c.path === 'image.tag')).to.deep.equal({ path: 'image.tag', from: 'v1', to: 'v2' });
    expect(revisionChanges(a, a)).to.deep.equal([]);
  });

  it('names an added or removed key with null on the side that lacks it', () => {
    const a = revisionSpecOf(input('v1'));
    const b = { ...a, template: { ...a.template, env: { ...a.template.env, NEW: 'x' } } };
    expect(revisionChanges(a, b)).to.deep.include({ path: 'template.env.NEW', from: null, to: 'x' });
    expect(revisionChanges(b, a)).to.deep.include({ path: 'template.env.NEW', from: 'x', to: null });
  });

  it('writes a unified diff of the two specs labelled with their revisions', () => {
    const unified = unifiedRevisionDiff({ revision: 1, spec: revisionSpecOf(input('v1')) }, { revision: 2, spec: revisionSpecOf(input('v2')) });
    expect(unified).to.match(/^--- revision 1/m).and.match(/^\+\+\+ revision 2/m);
    expect(unified).to.match(/^-\s+tag: v1$/m).and.match(/^\+\s+tag: v2$/m);
    expect(unified).to.not.include('hunter2');
  });

  it('leaves the default restart policy out of the template: a service that never set it keeps its revision hash', () => {
    // the hash of this revision before restartPolicy existed (main at 5c00578): no new revision number at the next deploy
    expect(revisionHash(revisionSpecOf(input('v1')))).to.equal('1a99f5d7e93127c5037a82d1dfa67a6216afd4ebdc97696ded4467ac868d5cf2');
    const unlessStopped = { ...service, restartPolicy: 'unless-stopped' } as unknown as ServiceRow;
    expect(templateOf(unlessStopped)).to.not.have.property('restartPolicy');
    expect(templateOf({ ...unlessStopped, restartPolicy: 'on-failure:3' })).to.include({ restartPolicy: 'on-failure:3' });
  });

  it('names a changed restart policy in the template and in each rendered container, default included', () => {
    const always = { ...service, restartPolicy: 'always' };
    const a = revisionSpecOf(input('v1'));
    const b = revisionSpecOf({ ...input('v1'), template: templateOf(always as unknown as ServiceRow), rendered: [rendered('v1', secrets, always)] });
    expect(revisionHash(b)).to.not.equal(revisionHash(a));
    expect(revisionChanges(a, b)).to.deep.equal([
      { path: 'deployments.s1/web.restart', from: 'unless-stopped', to: 'always' },
      { path: 'template.restartPolicy', from: 'unless-stopped', to: 'always' },
    ]);
    const unified = unifiedRevisionDiff({ revision: 1, spec: a }, { revision: 2, spec: b });
    expect(unified).to.match(/^-\s+restartPolicy: unless-stopped$/m).and.match(/^\+\s+restartPolicy: always$/m);
    // a revert to the revision without the field restores the default, not today's policy
    const today = { ...always, imageTag: 'v1', containerImageId: 'img' } as unknown as ServiceRow;
    expect(serviceAtRevision(today, a).restartPolicy).to.equal('unless-stopped');
    expect(specOfRevision(a)).to.include({ restartPolicy: 'unless-stopped', imageTag: 'v1', containerImageId: 'img' });
    expect(serviceAtRevision({ ...today, restartPolicy: 'no' }, b).restartPolicy).to.equal('always');
  });

  it("puts the revision's template and tag over today's service row", () => {
    const spec = revisionSpecOf(input('v1'));
    const today = { ...service, imageTag: 'v9', env: { OTHER: '1' }, containerImageId: 'img2', generation: 4 } as unknown as ServiceRow;
    const at = serviceAtRevision(today, spec);
    expect(at).to.include({ imageTag: 'v1', containerImageId: 'img', generation: 4 });
    expect(at.env).to.deep.equal(service.env);
  });
});
