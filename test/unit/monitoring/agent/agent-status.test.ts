import { expect } from 'chai';
import { parseAgentStatus } from '../../../../controller/monitoring/agent/agent-status.js';

describe('parseAgentStatus', () => {
  it("reads the script's key=value lines", () => {
    expect(parseAgentStatus('installed=yes\nversion=1.0.0\nsupervisor=loop\nrunning=yes\npid=4242\n')).to.deep.equal({
      installed: true, version: '1.0.0', supervisor: 'loop', running: true, pid: 4242,
    });
  });

  it('reports an installed agent whose process is gone as not running, with no pid', () => {
    expect(parseAgentStatus('installed=yes\nversion=1.0.0\nsupervisor=none\nrunning=no\npid=\n'))
      .to.include({ installed: true, running: false, pid: null, supervisor: 'none' });
  });

  it('reports nothing but "not installed" when there is no script, whatever else the output says', () => {
    expect(parseAgentStatus('installed=no\nrunning=yes\n')).to.deep.equal({ installed: false, version: null, supervisor: null, running: false, pid: null });
    expect(parseAgentStatus('')).to.include({ installed: false, running: false });
  });
});
