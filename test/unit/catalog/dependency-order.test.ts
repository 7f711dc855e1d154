import { expect } from 'chai';
import {
  cycleIfAdded, dependencyCandidates, dependencyLevels, dependencyOrder, findCycle, type OrderEdge,
} from '../../../controller/catalog/dependency-order.js';
import { AppError } from '../../../controller/errors/app-error.js';

const node = (name: string) => ({ id: `id-${name}`, name });
const edge = (from: string, to: string): OrderEdge => ({ serviceId: `id-${from}`, dependsOnServiceId: `id-${to}` });
const names = (ns: { name: string }[]) => ns.map((n) => n.name);

describe('dependency order', () => {
  const nodes = ['web', 'api', 'db', 'cache', 'worker'].map(node);
  const edges = [edge('web', 'api'), edge('api', 'db'), edge('api', 'cache'), edge('worker', 'db')];

  it('puts dependencies before their dependents and sorts by name within a level', () => {
    expect(names(dependencyOrder(nodes, edges))).to.deep.equal(['cache', 'db', 'api', 'worker', 'web']);
  });

  it('groups services into levels that can deploy in parallel', () => {
    expect(dependencyLevels(nodes, edges).map(names)).to.deep.equal([['cache', 'db'], ['api', 'worker'], ['web']]);
  });

  it('gives the same order whatever the input order of nodes and edges', () => {
    const shuffled = [...nodes].reverse();
    expect(names(dependencyOrder(shuffled, [...edges].reverse()))).to.deep.equal(['cache', 'db', 'api', 'worker', 'web']);
  });

  it('ignores duplicate edges and edges to services outside the set', () => {
    const order = dependencyOrder([node('web'), node('api')], [edge('web', 'api'), edge('web', 'api'), edge('web', 'ghost')]);
    expect(names(order)).to.deep.equal(['api', 'web']);
  });

  it('returns no levels for no services', () => {
    expect(dependencyLevels([], [])).to.deep.equal([]);
  });

  it('throws a VALIDATION_ERROR naming the cycle', () => {
    const cyclic = [edge('web', 'api'), edge('api', 'web'), edge('web', 'db')];
    let err: unknown;
    try {
      dependencyOrder([node('web'), node('api'), node('db')], cyclic);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(AppError);
    expect((err as AppError).code).to.equal('VALIDATION_ERROR');
    expect((err as AppError).message).to.equal('Dependency cycle: api -> web -> api');
  });

  it('finds a longer cycle and leaves services outside it out of the message', () => {
    const cyc = findCycle(['a', 'b', 'c', 'd'].map(node), [edge('d', 'a'), edge('a', 'b'), edge('b', 'c'), edge('c', 'a')]);
    expect(cyc).to.deep.equal(['a', 'b', 'c', 'a']);
    expect(findCycle(nodes, edges)).to.equal(null);
  });

  it('names the cycle a new edge would close, starting at the service that gains the dependency', () => {
    expect(cycleIfAdded(nodes, edges, edge('db', 'web'))).to.deep.equal(['db', 'web', 'api', 'db']);
    expect(cycleIfAdded(nodes, edges, edge('web', 'web'))).to.deep.equal(['web', 'web']);
    expect(cycleIfAdded(nodes, edges, edge('web', 'worker'))).to.equal(null);
  });

  it('offers as candidates only services that close no cycle and are not yet dependencies', () => {
    expect(names(dependencyCandidates(nodes, edges, 'id-api'))).to.deep.equal(['worker']);
    expect(names(dependencyCandidates(nodes, edges, 'id-db'))).to.deep.equal(['cache']);
    expect(names(dependencyCandidates(nodes, edges, 'id-web'))).to.deep.equal(['cache', 'db', 'worker']);
  });
});
