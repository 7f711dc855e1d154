import { expect } from 'chai';
import { composeConfig, composeDown, composePluginVersion, composeStandaloneVersion, composeUp } from '../../../../controller/hosts/commands/compose.js';
import { toShellLine } from '../../../../controller/hosts/shell-quote.js';

const project = { projectName: 'shop', file: '/srv/stevedore/shop/compose.yml' };

describe('compose commands', () => {
  it('up uses the v2 plugin when detected', () => {
    expect(toShellLine(composeUp('plugin', project, { removeOrphans: true }))).to.equal(
      'docker compose --project-name shop --file /srv/stevedore/shop/compose.yml up --detach --remove-orphans');
  });

  it('up falls back to the v1 binary', () => {
    expect(toShellLine(composeUp('standalone', project, { services: ['web'] }))).to.equal(
      'docker-compose --project-name shop --file /srv/stevedore/shop/compose.yml up --detach web');
  });

  it('up of one service of a shared file leaves its dependencies alone', () => {
    expect(toShellLine(composeUp('plugin', project, { services: ['web-1'], noDeps: true }))).to.equal(
      'docker compose --project-name shop --file /srv/stevedore/shop/compose.yml up --detach --no-deps web-1');
  });

  it('down and config', () => {
    expect(toShellLine(composeDown('plugin', project, { volumes: true, timeoutSeconds: 3 }))).to.equal(
      'docker compose --project-name shop --file /srv/stevedore/shop/compose.yml down --volumes --timeout 3');
    expect(toShellLine(composeConfig('standalone', project, { quiet: true }))).to.equal(
      'docker-compose --project-name shop --file /srv/stevedore/shop/compose.yml config --quiet');
  });

  it('quotes a project file path with spaces', () => {
    expect(toShellLine(composeConfig('plugin', { projectName: 'a', file: '/srv/my app/compose.yml' }))).to.equal(
      "docker compose --project-name a --file '/srv/my app/compose.yml' config");
  });

  it('detection probes', () => {
    expect(toShellLine(composePluginVersion())).to.equal('docker compose version --short');
    expect(toShellLine(composeStandaloneVersion())).to.equal('docker-compose version --short');
  });
});
