import { expect } from 'chai';
import { and, or, pipe } from '../../../../controller/hosts/commands/combine.js';

describe('combine', () => {
  it('pipe quotes each part and only the operator stays raw', () => {
    expect(pipe(['docker', 'ps', '-q'], ['xargs', 'docker', 'stop'])).to.deep.equal(['sh', '-c', 'docker ps -q | xargs docker stop']);
  });

  it('and / or keep hostile parts literal', () => {
    expect(and(['mkdir', '-p', '/srv/a'], ['echo', '$(id)'])).to.deep.equal(['sh', '-c', "mkdir -p /srv/a && echo '$(id)'"]);
    expect(or(['test', '-e', '/a'], ['touch', '/a'])).to.deep.equal(['sh', '-c', 'test -e /a || touch /a']);
  });
});
