import { expect } from 'chai';
import { plan } from '../../../../reconcilers/deployment/plan.js';
import { missing } from '../../../../reconcilers/deployment/observe.js';
import { desired, observedOf } from './desired-fixture.js';

const fields = (p: ReturnType<typeof plan>) => p.differences.map((x) => x.field);

describe('deployment plan (desired vs observed)', () => {
  const d = desired();

  it('does nothing when the container runs the desired spec (image defaults and image volumes aside)', () => {
    expect(plan(d, observedOf(d))).to.deep.equal({ action: 'none', adopted: false, differences: [], runningTag: 'v1' });
  });

  it('creates a missing container', () => {
    expect(plan(d, missing()).action).to.equal('create');
  });

  it('recreates for each differing field and names it, never the values', () => {
    const o = observedOf(d);
    const p = plan(d, { ...o, env: { ...o.env, TOKEN: 'old-secret' }, ports: [':8080:80/tcp'], specHash: 'old' });
    expect(p.action).to.equal('recreate');
    expect(fields(p)).to.deep.equal(['env', 'ports']);
    expect(p.differences[0]).to.include({ reason: 'EnvChanged', message: 'container web-1 has a different environment: TOKEN' });
    expect(JSON.stringify(p)).to.not.include('secret');
  });

  it('shows the desired tag against the running tag', () => {
    const p = plan(desired({ imageTag: 'v2' }), observedOf(d));
    expect(p.runningTag).to.equal('v1');
    expect(p.differences[0]).to.include({ field: 'image', reason: 'ImageChanged' });
    expect(p.differences[0].message).to.match(/runs v1, desired v2/);
  });

  it('sees a config file edited on disk, or one that is not mounted', () => {
    const o = observedOf(d);
    const edited = plan(d, { ...o, files: { [d.files[0].hostPath]: 'other' } });
    expect(edited.differences.map((x) => [x.field, x.reason])).to.deep.equal([['files', 'ConfigFileChanged']]);
    expect(fields(plan(d, { ...o, mounts: ['/data:/data'] }))).to.deep.equal(['volumes']);
  });

  it('starts a container that is only stopped, recreates one that is stopped and changed', () => {
    const o = observedOf(d);
    expect(plan(d, { ...o, running: false, state: 'exited' })).to.deep.include({ action: 'start' });
    expect(plan(d, { ...o, running: false, state: 'exited', image: 'reg:5000/acme/web:v0' }).action).to.equal('recreate');
  });

  it('recreates a container whose restart policy was changed by hand, though its spec-hash label still matches', () => {
    const o = { ...observedOf(d), restart: 'no' };
    expect(o.specHash).to.equal(d.specHash);
    const p = plan(d, o);
    expect(p.action).to.equal('recreate');
    expect(p.differences).to.deep.equal([{ field: 'restart', reason: 'SpecChanged', message: 'restart policy of web-1 is no, desired unless-stopped' }]);
    // stopped as well: a start would keep the wrong policy
    expect(plan(d, { ...o, running: false, state: 'exited' }).action).to.equal('recreate');
  });

  it('compares the service\'s restart policy, on-failure with its retry count', () => {
    const d3 = desired({}, { restartPolicy: 'on-failure:3' });
    expect(plan(d3, observedOf(d3)).action).to.equal('none');
    for (const [running, desire] of [['on-failure', 'on-failure:3'], ['on-failure:5', 'on-failure:3'], ['unless-stopped', 'always'], ['always', 'no']]) {
      const want = desired({}, { restartPolicy: desire });
      const p = plan(want, { ...observedOf(want), restart: running });
      expect(p.action).to.equal('recreate');
      expect(p.differences).to.deep.equal([{ field: 'restart', reason: 'SpecChanged', message: `restart policy of web-1 is ${running}, desired ${desire}` }]);
    }
    // a container created from an older spec (the default) when the service now asks for another: the field names it
    expect(fields(plan(desired({}, { restartPolicy: 'always' }), observedOf(d)))).to.deep.equal(['restart']);
  });

  it('notices a spec change no compared field shows, through the spec-hash label', () => {
    const p = plan(d, { ...observedOf(d), specHash: 'other' });
    expect(p.differences.map((x) => [x.field, x.reason])).to.deep.equal([['spec', 'SpecChanged']]);
  });

  it('refuses a container of another environment, naming it and the server', () => {
    const o = observedOf(d);
    const p = plan(d, { ...o, owner: { ...o.owner, environmentId: 'env-2', environmentName: 'production', deploymentId: 'dep-9' } });
    expect(p.action).to.equal('conflict');
    expect(p.differences[0]).to.include({ reason: 'NameConflict', message: 'container web-1 on server s1 belongs to environment "production"' });
  });

  it('refuses a container Stevedore did not create, except one a hand-written compose file makes', () => {
    const stranger = { ...observedOf(d), owner: { managed: false, environmentId: null, environmentName: null, serviceId: null, deploymentId: null } };
    expect(plan(d, stranger).differences[0].message).to.equal('container web-1 on server s1 was not created by Stevedore');
    const external = desired({ mode: 'compose-external' });
    expect(plan(external, { ...stranger, image: external.image }).action).to.equal('none');
  });

  it('refuses another deployment of the same environment', () => {
    const o = observedOf(d);
    expect(plan(d, { ...o, owner: { ...o.owner, deploymentId: 'dep-2' } }).differences[0].message).to.match(/another deployment \(dep-2\)/);
  });

  describe('adoption (a container started outside Stevedore, taken over by its id)', () => {
    const ID = 'a'.repeat(64);
    const adopting = desired({ deployment: { id: 'dep-1', containerName: 'web-1', serverId: 'srv-1', adoptedContainerId: ID } });
    const unlabelled = { managed: false, environmentId: null, environmentName: null, serviceId: null, deploymentId: null };
    const handRun = () => ({ ...observedOf(adopting), id: ID, owner: { ...unlabelled }, specHash: null });

    it('leaves the adopted container alone while it matches the spec field by field (no labels, no spec hash)', () => {
      expect(plan(adopting, handRun())).to.deep.equal({ action: 'none', adopted: true, differences: [], runningTag: 'v1' });
    });

    it('is a conflict without the recorded adoption, or for another container id', () => {
      expect(plan(d, { ...handRun() }).action).to.equal('conflict');
      expect(plan(adopting, { ...handRun(), id: 'b'.repeat(64) }).action).to.equal('conflict');
    });

    it('never adopts a container that carries ownership labels (another environment or deployment)', () => {
      const other = plan(adopting, { ...handRun(), owner: { ...unlabelled, managed: true, environmentId: 'env-2', deploymentId: 'dep-9' } });
      expect(other.action).to.equal('conflict');
      expect(other.adopted).to.equal(false);
    });

    it('recreates the adopted container through a normal difference (a new tag), still naming it adopted', () => {
      const p = plan(desired({ imageTag: 'v2', deployment: { id: 'dep-1', containerName: 'web-1', serverId: 'srv-1', adoptedContainerId: ID } }), handRun());
      expect(p).to.include({ action: 'recreate', adopted: true });
      expect(fields(p)).to.deep.equal(['image']);
    });
  });
});
