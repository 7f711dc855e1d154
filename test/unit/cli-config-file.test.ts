import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from '../../controller/cli/cli-error.js';
import { configPath, readConfig, useContext, withContext, writeConfig } from '../../controller/cli/config-file.js';
import { resolveConnection } from '../../controller/cli/connection.js';

describe('cli config file', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-config-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lives in $XDG_CONFIG_HOME/stevedore/config.yaml, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).to.equal('/x/stevedore/config.yaml');
    expect(configPath({ HOME: '/home/u' })).to.equal('/home/u/.config/stevedore/config.yaml');
  });

  it('writes mode 0600, and narrows a file an earlier tool left readable by others', () => {
    const file = path.join(dir, 'stevedore', 'config.yaml');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, 'contexts: []\n', { mode: 0o644 });
    writeConfig(file, withContext(readConfig(file), { name: 'a', url: 'http://a:1', token: 't' }));
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
    expect(readConfig(file)).to.deep.equal({ currentContext: 'a', contexts: [{ name: 'a', url: 'http://a:1', token: 't' }] });
  });

  it('reads a missing file as no contexts, and a broken one as a one-line error', () => {
    expect(readConfig(path.join(dir, 'none.yaml'))).to.deep.equal({ contexts: [] });
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'contexts: [\n');
    expect(() => readConfig(bad)).to.throw(CliError).with.property('message').that.does.not.include('\n');
  });

  it('withContext replaces a context of the same name and makes it current; useContext refuses an unknown name', () => {
    let c = withContext({ contexts: [] }, { name: 'a', url: 'http://a', token: '1' });
    c = withContext(c, { name: 'b', url: 'http://b', token: '2' });
    c = withContext(c, { name: 'a', url: 'http://a', token: '3' });
    expect(c.contexts.map((x) => `${x.name}=${x.token}`)).to.deep.equal(['b=2', 'a=3']);
    expect(useContext(c, 'b').currentContext).to.equal('b');
    expect(() => useContext(c, 'z')).to.throw(CliError, /no context named z/);
  });

  it('resolves the connection: flags, then --context, then STEVEDORE_URL/TOKEN, then the current context', () => {
    const file = path.join(dir, 'stevedore', 'config.yaml');
    writeConfig(file, { currentContext: 'cur', contexts: [
      { name: 'cur', url: 'http://cur', token: 'tc', environment: 'prod' }, { name: 'other', url: 'http://other', token: 'to' }] });
    const env = { XDG_CONFIG_HOME: dir };
    expect(resolveConnection({}, env)).to.include({ url: 'http://cur', token: 'tc', environment: 'prod' });
    expect(resolveConnection({}, { ...env, STEVEDORE_URL: 'http://e', STEVEDORE_TOKEN: 'te' })).to.include({ url: 'http://e', token: 'te' });
    expect(resolveConnection({ context: 'other' }, { ...env, STEVEDORE_URL: 'http://e', STEVEDORE_TOKEN: 'te' })).to.include({ url: 'http://other', token: 'to' });
    expect(resolveConnection({ url: 'http://f', token: 'tf', context: 'other' }, env)).to.include({ url: 'http://f', token: 'tf' });
    expect(() => resolveConnection({ context: 'nope' }, env)).to.throw(CliError, /no context named nope/);
    // a context's token goes to its own URL only
    expect(() => resolveConnection({ url: 'http://elsewhere' }, env)).to.throw(CliError, /no token for http:\/\/elsewhere/);
    expect(() => resolveConnection({}, { ...env, STEVEDORE_URL: 'http://elsewhere' })).to.throw(CliError, /no token for/);
    expect(resolveConnection({}, { ...env, STEVEDORE_URL: 'http://cur' })).to.include({ token: 'tc', environment: 'prod' });
    // set but empty counts as unset: the current context answers (an unset CI secret, `STEVEDORE_URL= stevedore …`)
    expect(resolveConnection({}, { ...env, STEVEDORE_URL: '', STEVEDORE_TOKEN: '' })).to.include({ url: 'http://cur', token: 'tc', environment: 'prod' });
    expect(() => resolveConnection({}, { XDG_CONFIG_HOME: path.join(dir, 'empty') })).to.throw(CliError, /stevedore login URL/);
  });
});
