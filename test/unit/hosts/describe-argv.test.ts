import { expect } from 'chai';
import { run } from '../../../controller/hosts/commands/docker.js';
import { describeArgv, toShellLine } from '../../../controller/hosts/shell-quote.js';

describe('describeArgv (commands as shown in errors)', () => {
  it('masks env values, build args and passwords in every spelling and keeps everything else', () => {
    const argv = ['docker', 'run', '--env', 'API_TOKEN=s3cr3t-a', '-e', 'DB_PASS=s3cr3t-b', '--env=X=s3cr3t-c',
      '--build-arg', 'NPM_TOKEN=s3cr3t-d', '--password', 's3cr3t-e', '--token=s3cr3t-f', '-e', 'INHERITED', 'img:1', 'echo', 'A=b'];
    const shown = describeArgv(argv);
    expect(shown).to.not.match(/s3cr3t/);
    expect(shown).to.equal("docker run --env 'API_TOKEN=***' -e 'DB_PASS=***' '--env=X=***' --build-arg 'NPM_TOKEN=***' "
      + "--password '***' '--token=***' -e INHERITED img:1 echo A=b");
  });

  it('is the plain shell line when nothing is secret', () => {
    const argv = run({ name: 'web', image: 'nginx', labels: { 'stevedore.service': 'web' } });
    expect(describeArgv(argv)).to.equal(toShellLine(argv));
  });
});
