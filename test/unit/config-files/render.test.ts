import { expect } from 'chai';
import { inspect } from 'node:util';
import { render } from '../../../controller/config-files/render.js';
import { findTemplateProblem, referencesOf } from '../../../controller/config-files/placeholders.js';
import { Secret } from '../../../controller/config-files/secret.js';

const ctx = (over: Partial<{ vars: Record<string, string>; secrets: Record<string, string>; fragments: Record<string, string> }> = {}) => ({
  vars: new Map(Object.entries(over.vars ?? { HOST: 'db.local', PORT: '5432' })),
  secrets: new Map(Object.entries(over.secrets ?? { DB_PASSWORD: 's3cr3t-value' }).map(([k, v]) => [k, new Secret(v)])),
  fragments: new Map(Object.entries(over.fragments ?? { 'db-block': 'host=${HOST}\nport=${PORT}\n' })),
});

describe('config file rendering', () => {
  it('replaces var and secret placeholders and includes fragments with their own placeholders', () => {
    const out = render('${fragment:db-block}password=${DB_PASSWORD}\n', ctx());
    expect(out.content).to.equal('host=db.local\nport=5432\npassword=s3cr3t-value\n');
    expect(out.usedSecrets).to.deep.equal(['DB_PASSWORD']);
    expect(out.usedVars).to.deep.equal(['HOST', 'PORT']);
    expect(out.usedFragments).to.deep.equal(['db-block']);
  });

  it('redacts secret values in a preview and keeps var values', () => {
    const out = render('a=${HOST} b=${DB_PASSWORD}', ctx(), { redact: true });
    expect(out.content).to.equal('a=db.local b=[REDACTED]');
  });

  it('reports unknown keys and fragments and leaves them in place instead of rendering them empty', () => {
    const out = render('x=${MISSING} ${fragment:nope}', ctx());
    expect(out.content).to.equal('x=${MISSING} ${fragment:nope}');
    expect(out.unresolvedKeys).to.deep.equal(['MISSING']);
    expect(out.unknownFragments).to.deep.equal(['nope']);
  });

  it('renders $${ as a literal ${ so shell scripts can keep their own variables', () => {
    expect(render('echo $${HOME} ${HOST}', ctx()).content).to.equal('echo ${HOME} db.local');
  });

  it('does not include fragments from inside fragments', () => {
    const out = render('${fragment:a}', ctx({ fragments: { a: 'in ${fragment:b}', b: 'never' } }));
    expect(out.content).to.equal('in ${fragment:b}');
  });

  it('a secret wins over a var with the same key', () => {
    expect(render('${K}', ctx({ vars: { K: 'var' }, secrets: { K: 'secret' } })).content).to.equal('secret');
  });

  it('finds placeholders with shell metacharacters, lower case or no closing brace as invalid, with line and column', () => {
    expect(findTemplateProblem('ok ${GOOD}\nbad ${KEY;rm -rf /}')).to.deep.include({ line: 2, column: 5 });
    expect(findTemplateProblem('${lower}')).to.not.equal(null);
    expect(findTemplateProblem('${$(id)}')).to.not.equal(null);
    expect(findTemplateProblem('open ${KEY')).to.not.equal(null);
    expect(findTemplateProblem('${fragment:a}', false)).to.not.equal(null);
    expect(findTemplateProblem('fine ${A_B1} $${x} ${fragment:db-block}')).to.equal(null);
  });

  it('lists the keys and fragments a template references', () => {
    expect(referencesOf('${B} ${A} ${B} ${fragment:f}')).to.deep.equal({ keys: ['A', 'B'], fragments: ['f'] });
  });

  it('a Secret prints as [REDACTED] in strings, JSON and inspect', () => {
    const s = new Secret('hunter2-value');
    expect(`${s}`).to.equal('[REDACTED]');
    expect(JSON.stringify({ s })).to.equal('{"s":"[REDACTED]"}');
    expect(inspect(s)).to.equal('[REDACTED]');
    expect(s.reveal()).to.equal('hunter2-value');
  });
});
