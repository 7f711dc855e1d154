import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { expectedExit, gettingStartedScript, replaceValues, shellBlocks, withExpectedExits } from '../../support/readme-script.js';

const run = (script: string) => spawnSync('bash', ['-c', `set -eo pipefail\n${script}`], { encoding: 'utf8' });

describe('README Getting started as a script (test/support/readme-script.ts)', () => {
  it('reads the exit code a comment promises, and nothing from other comments', () => {
    expect(expectedExit('stevedore apply x   # refused (exit 1): it watches x')).to.equal(1);
    expect(expectedExit('stevedore diff x    # exit 2 when something would change')).to.equal(2);
    expect(expectedExit('stevedore get services   # api and web, READY True')).to.equal(null);
    expect(expectedExit('stevedore diff x    # No changes (exit 0; 2 when something would change)')).to.equal(null);
  });

  it('a marked command must exit with exactly its code; the others stop the script when they fail', () => {
    expect(run(withExpectedExits('false   # exit 1: on purpose\necho after')).stdout).to.equal('after\n');
    const zero = run(withExpectedExits('true   # exit 1: on purpose\necho after'));
    expect(zero.status).to.equal(90);
    expect(zero.stderr).to.include('exited 0, expected 1: true');
    const other = run(withExpectedExits('(exit 3)   # exit 1: on purpose\necho after'));
    expect(other.status).to.equal(91);
    expect(other.stderr).to.include('exited 3, expected 1');
    expect(run(withExpectedExits('false\necho after')).status).to.equal(1);
    expect(() => withExpectedExits('echo a |\n  false   # exit 1: x')).to.throw(/one line/);
  });

  it('takes the sh blocks of the one section, and replaces only values the first block holds', () => {
    const readme = '# T\n## Getting started\ntext\n```sh\nexport A=1\n```\n```js\nno\n```\n```sh\necho $A\n```\n## Next\n```sh\nnot this\n```\n';
    expect(shellBlocks(readme, '## Getting started')).to.deep.equal(['export A=1\n', 'echo $A\n']);
    expect(() => replaceValues('export A=1\n', [['B=2', 'B=3']])).to.throw(/no longer holds B=2/);
    const { script } = gettingStartedScript(readme, [['A=1', 'A=7']], 'set -e');
    expect(run(script).stdout).to.equal('7\n');
  });
});
