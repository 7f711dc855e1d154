import { expect } from 'chai';
import { resolveCommands } from '../../../controller/catalog/resolve-commands.js';

describe('resolve predefined commands', () => {
  it('runs container commands through docker exec and fills {{container}} in host commands', () => {
    const out = resolveCommands([
      { name: 'reload', target: 'container', command: ['nginx', '-s', 'reload'] },
      { name: 'logs', description: 'tail', target: 'host', command: ['docker', 'logs', '--tail', '200', '{{container}}'] },
    ], 'web-1');
    expect(out.map((c) => c.argv.join(' '))).to.deep.equal(['docker exec web-1 nginx -s reload', 'docker logs --tail 200 web-1']);
    expect(out[1].description).to.equal('tail');
  });
});
