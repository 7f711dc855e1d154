import { expect } from 'chai';
import { decideCompose, managedComposePath } from '../../../controller/deploy/compose/compose-path-rules.js';
import { assertSafePath, isContainerName, isImageTag, isSafeAbsolutePath } from '../../../controller/deploy/names.js';

const facts = { containerName: 'web-1', deploymentsSharingPath: 1 };

describe('compose path rules', () => {
  it('rule 1: a path already set is kept whatever autoManageCompose says', () => {
    for (const autoManageCompose of [true, false]) {
      expect(decideCompose({ ...facts, composePath: '/srv/app/compose.yml', autoManageCompose }))
        .to.deep.equal({ mode: 'compose-external', path: '/srv/app/compose.yml', shared: false });
    }
  });

  it('rule 2: without a path and with autoManageCompose off the container is restarted directly', () => {
    expect(decideCompose({ ...facts, composePath: null, autoManageCompose: false })).to.deep.equal({ mode: 'direct' });
  });

  it('rule 3: without a path and with autoManageCompose on the generated file is written and its path recorded', () => {
    expect(decideCompose({ ...facts, composePath: null, autoManageCompose: true }))
      .to.deep.equal({ mode: 'compose-generated', path: managedComposePath('web-1'), recordPath: true });
  });

  it('a recorded generated path stays generated and is not recorded again', () => {
    expect(decideCompose({ ...facts, composePath: managedComposePath('web-1'), autoManageCompose: false }))
      .to.deep.equal({ mode: 'compose-generated', path: managedComposePath('web-1'), recordPath: false });
  });

  it('rule 6: a file shared by several deployments is external (validated, never written), even a generated path', () => {
    expect(decideCompose({ containerName: 'web-1', deploymentsSharingPath: 2, composePath: managedComposePath('web-1'), autoManageCompose: true }))
      .to.deep.equal({ mode: 'compose-external', path: managedComposePath('web-1'), shared: true });
  });
});

describe('names that reach a server', () => {
  it('rejects container names, tags and paths that would break a shell or escape a directory', () => {
    for (const bad of ['-rm', 'a b', 'x;rm -rf /', '$(id)', '', 'a/b', '.hidden']) expect(isContainerName(bad), bad).to.equal(false);
    for (const bad of ['-v', 'v1;id', '../x', 'v 1', '.x', 'a'.repeat(129)]) expect(isImageTag(bad), bad).to.equal(false);
    for (const bad of ['relative/x.yml', '/srv/../etc/passwd', '/srv/./x', '/srv//x', '/srv/$(id).yml', '/srv/a b.yml', '/srv/x\n']) {
      expect(isSafeAbsolutePath(bad), bad).to.equal(false);
    }
    expect(() => assertSafePath('/a/../b')).to.throw(/absolute path/);
  });

  it('accepts ordinary names, tags and paths', () => {
    expect(isContainerName('web_1.prod-a')).to.equal(true);
    expect(isImageTag('v1.2.3-rc_1')).to.equal(true);
    expect(isSafeAbsolutePath('/srv/app/docker-compose.yml')).to.equal(true);
  });
});
