import { expect } from 'chai';
import { formatLabels, keyProblem, labelsProblem, matchesSelector, parseLabelSelector, valueProblem } from '../../../controller/placement/labels.js';
import { placementChanges } from '../../../reconcilers/service/placement.js';

describe('server labels and selectors', () => {
  it('accepts the label keys Kubernetes accepts, with or without a DNS prefix', () => {
    for (const k of ['role', 'app.kubernetes.io/name', 'example.com/tier', 'a', 'A-b_c.d', 'x'.repeat(63), `${'a'.repeat(253)}/n`]) {
      expect(keyProblem(k), k).to.equal(null);
    }
  });

  it('refuses keys Kubernetes refuses, saying which part is wrong', () => {
    expect(keyProblem('')).to.match(/name must be 1-63/);
    expect(keyProblem('-role')).to.match(/name must/);
    expect(keyProblem('role-')).to.match(/name must/);
    expect(keyProblem('x'.repeat(64))).to.match(/name must/);
    expect(keyProblem('Example.com/x')).to.match(/prefix must be a DNS subdomain/);
    expect(keyProblem('/x')).to.match(/prefix/);
    expect(keyProblem('a/b/c')).to.match(/prefix/);
    expect(keyProblem(`${'a'.repeat(254)}/n`)).to.match(/prefix/);
    expect(keyProblem('ro le')).to.match(/name must/);
    expect(keyProblem('role/')).to.match(/name must/);
  });

  it('accepts empty values and names, refuses the rest', () => {
    for (const v of ['', 'web', 'v1.2_3-x', 'x'.repeat(63)]) expect(valueProblem('k', v), v).to.equal(null);
    for (const v of ['-web', 'web-', 'a b', 'x'.repeat(64), 'a/b']) expect(valueProblem('k', v), v).to.match(/value must/);
    expect(valueProblem('k', 3)).to.match(/must be a string/);
    expect(labelsProblem({ role: 'web', 'bad key': 'x' })).to.match(/bad key/);
    expect(labelsProblem({ role: 'web' })).to.equal(null);
    expect(labelsProblem(undefined)).to.equal(null);
  });

  it('a selector matches a server holding every pair; an empty selector matches nothing', () => {
    const sel = { matchLabels: { role: 'web', zone: 'a' } };
    expect(matchesSelector(sel, { role: 'web', zone: 'a', extra: 'x' })).to.equal(true);
    expect(matchesSelector(sel, { role: 'web' })).to.equal(false);
    expect(matchesSelector(sel, { role: 'web', zone: 'b' })).to.equal(false);
    expect(matchesSelector(sel, null)).to.equal(false);
    expect(matchesSelector({ matchLabels: {} }, { role: 'web' })).to.equal(false);
    expect(matchesSelector(null, { role: 'web' })).to.equal(false);
    expect(matchesSelector({ matchLabels: { tier: '' } }, { tier: '' })).to.equal(true);
  });

  it('parses -l / labelSelector text and refuses what is not key=value', () => {
    expect(parseLabelSelector('role=web, zone=a')).to.deep.equal({ role: 'web', zone: 'a' });
    expect(parseLabelSelector('role==web')).to.deep.equal({ role: 'web' });
    expect(parseLabelSelector('tier=')).to.deep.equal({ tier: '' });
    expect(() => parseLabelSelector('role')).to.throw(/not key=value/);
    expect(() => parseLabelSelector('=web')).to.throw(/not key=value/);
    expect(() => parseLabelSelector('role=we b')).to.throw(/value must/);
    expect(() => parseLabelSelector(' , ')).to.throw(/names no label/);
    expect(formatLabels({ role: 'web', zone: 'a' })).to.equal('role=web,zone=a');
  });

  it('placement adds the matching servers without a deployment and drops the deployments of servers that stopped matching', () => {
    const servers = [
      { id: 's1', labels: { role: 'web' } }, { id: 's2', labels: { role: 'web' } }, { id: 's3', labels: { role: 'db' } },
    ];
    const deployments = [{ id: 'd1', serverId: 's1' }, { id: 'd3', serverId: 's3' }, { id: 'dx', serverId: 'gone' }];
    const change = placementChanges({ matchLabels: { role: 'web' } }, servers, deployments);
    expect(change.add).to.deep.equal(['s2']);
    expect(change.drop.map((d) => d.id)).to.deep.equal(['d3', 'dx']);
    const none = placementChanges({ matchLabels: { role: 'web' } }, servers, [{ id: 'd1', serverId: 's1' }, { id: 'd2', serverId: 's2' }]);
    expect(none).to.deep.equal({ add: [], drop: [] });
  });
});
