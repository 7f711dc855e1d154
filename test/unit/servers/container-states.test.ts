import { expect } from 'chai';
import { statusFromContainer } from '../../../controller/servers/container-states.js';

describe('a deployment status from what its container does', () => {
  it('is running only while Docker says running', () => {
    expect(statusFromContainer('running', 'stopped')).to.equal('running');
    expect(statusFromContainer('running', 'unknown')).to.equal('running');
    for (const state of ['exited', 'created', 'paused', 'restarting', 'dead']) expect(statusFromContainer(state, 'running')).to.equal('stopped');
    expect(statusFromContainer(null, 'running')).to.equal('missing');
    expect(statusFromContainer(null, 'failed')).to.equal('missing');
  });

  it('keeps failed while an older container still runs, and says stopped when none does', () => {
    expect(statusFromContainer('running', 'failed')).to.equal('failed');
    expect(statusFromContainer('exited', 'failed')).to.equal('stopped');
  });
});
