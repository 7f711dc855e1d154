import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { quoteArg, toShellLine } from '../../../controller/hosts/shell-quote.js';

const HOSTILE = ['$(touch /tmp/pwned)', '`touch /tmp/pwned`', "it's", '"double" quotes', 'a\nb', '', ' ', '*', '~root',
  '; rm -rf /', '&& echo hi', '| cat', '$HOME', '\\', "'", "''", '!!', '{a,b}', '-n', 'tab\there', 'ünïcødé ☃'];

// What a real remote shell would make of the line: bash splits it back into words for printf.
function wordsSeenByShell(line: string): string[] {
  const out = execFileSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shell-quote', () => {
  it('leaves plain words bare', () => {
    expect(quoteArg('docker')).to.equal('docker');
    expect(quoteArg('10.250.0.1:5000/stevedore-test/web:v1')).to.equal('10.250.0.1:5000/stevedore-test/web:v1');
    expect(quoteArg('label=stevedore.service=web')).to.equal('label=stevedore.service=web');
  });

  it('quotes an empty string as two single quotes', () => {
    expect(quoteArg('')).to.equal("''");
  });

  it('single-quotes command substitution so it stays literal', () => {
    expect(quoteArg('$(touch /tmp/pwned)')).to.equal("'$(touch /tmp/pwned)'");
    expect(quoteArg('`id`')).to.equal("'`id`'");
  });

  it('escapes embedded single quotes by closing and reopening', () => {
    expect(quoteArg("it's")).to.equal("'it'\\''s'");
  });

  it('keeps newlines inside the quotes', () => {
    expect(quoteArg('a\nb')).to.equal("'a\nb'");
  });

  it('quotes tilde, globs and braces that bare words would expand', () => {
    expect(quoteArg('~root')).to.equal("'~root'");
    expect(quoteArg('*')).to.equal("'*'");
    expect(quoteArg('{a,b}')).to.equal("'{a,b}'");
  });

  it('rejects a NUL byte, which no argv can carry', () => {
    expect(() => quoteArg('a\0b')).to.throw(TypeError, /NUL/);
  });

  it('joins argv with one space per word', () => {
    expect(toShellLine(['echo', 'a b', '', "x'y"])).to.equal("echo 'a b' '' 'x'\\''y'");
  });

  it('refuses an empty command', () => {
    expect(() => toShellLine([])).to.throw(TypeError);
  });

  it('round-trips every hostile argument through a real bash unchanged', () => {
    expect(wordsSeenByShell(toShellLine(HOSTILE))).to.deep.equal(HOSTILE);
  });
});
