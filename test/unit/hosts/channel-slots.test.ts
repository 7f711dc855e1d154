import { expect } from 'chai';
import { channelSlots } from '../../../controller/hosts/channel-slots.js';

/** Settles pending promise callbacks so the queue's state is observable. */
const tick = () => new Promise((r) => setImmediate(r));

describe('channel slots (per-connection channel bound)', () => {
  it('holds at most the limit at once and hands freed slots to waiters in arrival order', async () => {
    const slots = channelSlots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    const granted: string[] = [];
    const c = slots.acquire().then((r) => { granted.push('c'); return r; });
    const d = slots.acquire().then((r) => { granted.push('d'); return r; });
    await tick();
    expect(granted).to.deep.equal([]);
    expect(slots.active).to.equal(2);
    expect(slots.waiting).to.equal(2);
    a();
    await tick();
    expect(granted).to.deep.equal(['c']);
    expect(slots.active).to.equal(2);
    b();
    await tick();
    expect(granted).to.deep.equal(['c', 'd']);
    (await c)();
    (await d)();
    await tick();
    expect(slots.active).to.equal(0);
  });

  it('a slot released twice frees only one place', async () => {
    const slots = channelSlots(1);
    const a = await slots.acquire();
    let granted = 0;
    void slots.acquire().then(() => granted++);
    void slots.acquire().then(() => granted++);
    a();
    a();
    await tick();
    expect(granted).to.equal(1);
    expect(slots.active).to.equal(1);
  });
});
