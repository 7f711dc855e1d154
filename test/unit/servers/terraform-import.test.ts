import { expect } from 'chai';
import { hostsFromTerraformOutput } from '../../../controller/servers/terraform-import.js';

describe('hosts from terraform output -json', () => {
  it('reads a list output of objects with the usual address, port and user keys', () => {
    const doc = { servers: { sensitive: false, type: ['list'], value: [{ name: 'a', ipv4_address: '10.0.0.1', ssh_port: '2222', ssh_user: 'ops' }, { name: 'b', public_ip: '10.0.0.2' }] } };
    expect(hostsFromTerraformOutput(doc)).to.deep.equal([
      { name: 'a', hostname: '10.0.0.1', sshPort: 2222, sshUser: 'ops' },
      { name: 'b', hostname: '10.0.0.2' },
    ]);
  });

  it('reads maps of name to address or to objects, and bare values', () => {
    expect(hostsFromTerraformOutput({ m: { value: { web: 'web.internal' } } })).to.deep.equal([{ name: 'web', hostname: 'web.internal' }]);
    expect(hostsFromTerraformOutput({ db: { host: '10.0.0.3', port: 22 } })).to.deep.equal([{ name: 'db', hostname: '10.0.0.3', sshPort: 22 }]);
    expect(hostsFromTerraformOutput([{ name: 'x', hostname: 'x.internal' }])).to.deep.equal([{ name: 'x', hostname: 'x.internal' }]);
  });

  it('uses only the named output when outputName is given and skips outputs that are not hosts', () => {
    const doc = { a: { value: { s1: '10.0.0.1' } }, b: { value: { s2: '10.0.0.2' } }, region: { value: 'eu' } };
    expect(hostsFromTerraformOutput(doc, 'b').map((h) => h.name)).to.deep.equal(['s2']);
    expect(hostsFromTerraformOutput(doc).map((h) => h.name)).to.deep.equal(['s1', 's2']);
  });

  it('rejects hostile addresses and names, duplicate names and documents without hosts, naming where', () => {
    expect(() => hostsFromTerraformOutput([{ name: 'a', ip: '$(reboot)' }])).to.throw(/output\[0\]: not a valid hostname/);
    expect(() => hostsFromTerraformOutput({ 'a b': '10.0.0.1' })).to.throw(/not a valid server name/);
    expect(() => hostsFromTerraformOutput([{ name: 'a', ip: '10.0.0.1' }, { name: 'a', ip: '10.0.0.2' }])).to.throw(/appears twice/);
    expect(() => hostsFromTerraformOutput({ region: { value: 'eu' } })).to.throw(/no output holds/);
    expect(() => hostsFromTerraformOutput([{ name: 'a', ip: '10.0.0.1', port: 70000 }])).to.throw(/port/);
  });
});
