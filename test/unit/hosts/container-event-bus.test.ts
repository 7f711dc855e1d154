import { expect } from 'chai';
import { ContainerEventBus } from '../../../controller/hosts/container-event-bus.js';

const event = (containerId: string) => ({ serverId: 's', action: 'health_status: healthy', containerId, containerName: null, deploymentId: null });

describe('container event bus', () => {
  it('wakes a waiter at its container\'s event, long before the fallback', async () => {
    const bus = new ContainerEventBus();
    const t0 = Date.now();
    const next = bus.next('c1', 60_000);
    const other = bus.next('c2', 60_000);
    setTimeout(() => bus.publish(event('c1')), 10);
    await next.wait;
    expect(Date.now() - t0).to.be.lessThan(5000);
    other.cancel();
    await other.wait;
  });

  it('wakes at the fallback when no event comes, and forgets a cancelled waiter', async () => {
    const bus = new ContainerEventBus();
    const t0 = Date.now();
    await bus.next('c1', 30).wait;
    expect(Date.now() - t0).to.be.at.least(25);
    const cancelled = bus.next('c2', 60_000);
    cancelled.cancel();
    await cancelled.wait;
    expect((bus as unknown as { waiters: Map<string, unknown> }).waiters.size).to.equal(0);
  });
});
