import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { containerEventFilters, DockerEventWatches, eventLineSplitter, toContainerEvent } from '../../../controller/hosts/docker-events.js';
import { createLogger } from '../../../controller/logger.js';

describe('docker events of managed containers', () => {
  it('asks Docker only for managed containers and the actions that can change what runs', () => {
    expect(containerEventFilters()).to.deep.equal({
      type: ['container'], label: ['stevedore.managed=true'],
      event: ['die', 'stop', 'kill', 'oom', 'destroy', 'start', 'health_status'],
    });
  });

  it('reads events split anywhere across chunks, and skips lines that are not JSON', () => {
    const seen: unknown[] = [];
    const feed = eventLineSplitter((m) => seen.push(m));
    const a = JSON.stringify({ Type: 'container', Action: 'die', Actor: { ID: 'c1', Attributes: { name: 'web', 'stevedore.deployment-id': 'd1' } } });
    const b = JSON.stringify({ Type: 'container', Action: 'health_status: unhealthy', Actor: { ID: 'c2', Attributes: {} } });
    feed(a.slice(0, 10));
    expect(seen).to.have.length(0);
    feed(`${a.slice(10)}\nnot json\n${b.slice(0, 5)}`);
    expect(seen).to.have.length(1);
    feed(Buffer.from(`${b.slice(5)}\n`));
    expect(seen).to.have.length(2);
  });

  it('names the deployment from the container label, and ignores what is not a container event', () => {
    expect(toContainerEvent('s', { Type: 'container', Action: 'stop', Actor: { ID: 'c1', Attributes: { name: 'web', 'stevedore.deployment-id': 'd1' } } }))
      .to.deep.equal({ serverId: 's', action: 'stop', containerId: 'c1', containerName: 'web', deploymentId: 'd1' });
    expect(toContainerEvent('s', { Type: 'container', Action: 'die', Actor: { ID: 'c1' } })?.deploymentId).to.equal(null);
    expect(toContainerEvent('s', { Type: 'network', Action: 'connect', Actor: { ID: 'n1' } })).to.equal(null);
  });

  it('connects at most connectsAtOnce streams at a time, and every watch opens in the end', async () => {
    let connecting = 0, most = 0;
    const streams: PassThrough[] = [];
    // a Docker whose events endpoint answers after a few milliseconds (the connect and its first answer)
    const docker = { getEvents: async () => {
      connecting++;
      most = Math.max(most, connecting);
      await new Promise((r) => setTimeout(r, 2));
      connecting--;
      const s = new PassThrough();
      streams.push(s);
      return s;
    } } as unknown as Docker;
    const connected = new Set<string>();
    const watches = new DockerEventWatches({
      docker: async () => docker, onEvent: () => undefined, onConnected: (id) => connected.add(id), logger: createLogger('silent'), connectsAtOnce: 4,
    });
    watches.sync(Array.from({ length: 40 }, (_, i) => `s${i}`));
    for (let i = 0; i < 200 && connected.size < 40; i++) await new Promise((r) => setTimeout(r, 5));
    watches.close();
    expect(connected.size).to.equal(40);
    expect(most).to.equal(4);
  });
});
