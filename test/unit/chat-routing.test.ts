import { expect } from 'chai';
import { resolveChannels } from '../../controller/delivery/chat-routing.js';

describe('chat fan-out rules', () => {
  it('a type routed to more than one channel collapses to the environment override', () => {
    expect(resolveChannels(['a', 'b'], 'o', 'd')).to.deep.equal(['o']);
  });
  it('a type routed to more than one channel goes to all of them without an override', () => {
    expect(resolveChannels(['a', 'b'], null, 'd')).to.deep.equal(['a', 'b']);
  });
  it('an unrouted type uses the override in place of the global default', () => {
    expect(resolveChannels([], 'o', 'd')).to.deep.equal(['o']);
    expect(resolveChannels([], null, 'd')).to.deep.equal(['d']);
    expect(resolveChannels([], null, null)).to.deep.equal([]);
  });
  it('a type routed to exactly one channel is unaffected by the override', () => {
    expect(resolveChannels(['a'], 'o', 'd')).to.deep.equal(['a']);
  });
});
