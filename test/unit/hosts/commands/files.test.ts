import { expect } from 'chai';
import * as files from '../../../../controller/hosts/commands/files.js';
import { toShellLine } from '../../../../controller/hosts/shell-quote.js';

describe('file commands', () => {
  it('mkdir -p with an octal mode', () => {
    expect(toShellLine(files.mkdirP('/srv/stevedore/app', 0o750))).to.equal('mkdir -p -m 750 -- /srv/stevedore/app');
    expect(toShellLine(files.mkdirP('/srv/x'))).to.equal('mkdir -p -- /srv/x');
  });

  it('cat, sha256sum and rm keep hostile names literal', () => {
    expect(toShellLine(files.cat('/tmp/$(touch pwned)'))).to.equal("cat -- '/tmp/$(touch pwned)'");
    expect(toShellLine(files.sha256sum('/srv/a b'))).to.equal("sha256sum -- '/srv/a b'");
    expect(toShellLine(files.removeFile('-rf'))).to.equal('rm -f -- -rf');
  });

  it('chmod, mv, test -e and ls', () => {
    expect(toShellLine(files.chmod(0o600, '/srv/.env'))).to.equal('chmod 600 -- /srv/.env');
    expect(toShellLine(files.move('/a', '/b'))).to.equal('mv -f -- /a /b');
    expect(toShellLine(files.exists('/a'))).to.equal('test -e /a');
    expect(toShellLine(files.listDir('/srv'))).to.equal('ls -1A -- /srv');
  });
});
