import { expect } from 'chai';
import { age, formatTable } from '../../controller/cli/format-table.js';
import { render } from '../../controller/cli/output.js';
import YAML from 'yaml';

describe('cli formatTable', () => {
  it('aligns every column to its widest cell under an upper-case header, without trailing blanks', () => {
    const text = formatTable(['name', 'status', 'tag'], [['web', 'running', 'v1'], ['api-server', 'ok', 'v12']]);
    expect(text).to.equal([
      'NAME        STATUS   TAG',
      'web         running  v1',
      'api-server  ok       v12',
      '',
    ].join('\n'));
  });

  it('shows an empty cell as <none> so columns stay countable', () => {
    expect(formatTable(['a', 'b'], [[null, 'x'], ['', undefined]])).to.equal('A       B\n<none>  x\n<none>  <none>\n');
  });

  it('prints the header alone when there are no rows', () => {
    expect(formatTable(['name', 'age'], [])).to.equal('NAME  AGE\n');
  });

  it('writes ages as kubectl does: seconds, then minutes, hours, days', () => {
    const now = Date.parse('2026-01-10T00:00:00Z');
    expect(age('2026-01-09T23:59:30Z', now)).to.equal('30s');
    expect(age('2026-01-09T23:50:00Z', now)).to.equal('10m');
    expect(age('2026-01-09T20:00:00Z', now)).to.equal('4h');
    expect(age('2026-01-01T00:00:00Z', now)).to.equal('9d');
    expect(age(null, now)).to.equal('');
  });

  it('render hides wide columns unless -o wide, and gives JSON and YAML as {items} or one object', () => {
    const cols = [{ header: 'name', cell: (i: any) => i.name }, { header: 'id', cell: (i: any) => i.id, wide: true }];
    const items = [{ name: 'a', id: '1' }];
    expect(render(items, cols, 'table')).to.equal('NAME\na\n');
    expect(render(items, cols, 'wide')).to.equal('NAME  ID\na     1\n');
    expect(JSON.parse(render(items, cols, 'json'))).to.deep.equal({ items });
    expect(YAML.parse(render(items, cols, 'yaml', true))).to.deep.equal(items[0]);
  });
});
