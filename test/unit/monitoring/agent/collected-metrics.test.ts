import { expect } from 'chai';
import { collectedMetrics, keepCollected } from '../../../../controller/monitoring/agent/collected-metrics.js';
import type { ServerSample } from '../../../../controller/monitoring/server-sample.js';

describe('collected metrics by monitoring toggles', () => {
  const all = { collectCpu: true, collectMemory: true, collectSwap: true, collectDisk: true, collectLoad: true, collectFds: true, collectTcp: true, collectProcesses: true };

  it('lists every enabled metric, and container stats while cpu or memory is on', () => {
    expect(collectedMetrics(all)).to.deep.equal(['cpu', 'memory', 'swap', 'disk', 'load', 'fds', 'tcp', 'processes', 'containers']);
    expect(collectedMetrics({ ...all, collectCpu: false, collectMemory: false, collectTcp: false })).to.deep.equal(['swap', 'disk', 'load', 'fds', 'processes']);
  });

  it('keeps only the readings of the collect list, and never invents one', () => {
    const sample: ServerSample = {
      serverId: 's', at: new Date(0), source: 'agent', cpuPercent: 0, swapUsedBytes: 1, swapTotalBytes: 2, load1: 0.1,
      containers: [{ name: 'a', cpuPercent: 1, memoryUsedBytes: 1, memoryLimitBytes: 2 }],
    };
    expect(keepCollected(sample, ['cpu', 'load', 'memory'])).to.deep.equal({ serverId: 's', at: new Date(0), source: 'agent', cpuPercent: 0, load1: 0.1 });
  });
});
