import { expect } from 'chai';
import { SaveCoalescer } from '../../../controller/manifests/save-coalescer.js';

const QUIET = 250;
const SETTLE = 30;

describe('manifest save coalescer', () => {
  it('arms the first change of a quiet folder with the short leading window, and joins what follows it there', () => {
    const c = new SaveCoalescer(QUIET, SETTLE);
    expect(c.event('change', 1000, false)).to.equal(SETTLE);
    expect(c.event('change', 1005, false)).to.equal(null); // the same save (truncate + write)
    expect(c.event('add', 1020, false)).to.equal(null);
  });

  it('coalesces events after the leading apply fired into one trailing apply, re-armed by each', () => {
    const c = new SaveCoalescer(QUIET, SETTLE);
    c.event('change', 1000, false);
    c.fired();
    // the rest of a git pull arrives while the first apply runs
    expect(c.event('change', 1040, true)).to.equal(QUIET);
    expect(c.event('change', 1100, true)).to.equal(QUIET);
    c.fired();
    // quiet again: the next save applies at once
    expect(c.event('change', 1100 + QUIET + 1, false)).to.equal(SETTLE);
  });

  it('does not treat a folder as quiet while an apply runs or soon after the last event', () => {
    const c = new SaveCoalescer(QUIET, SETTLE);
    expect(c.event('change', 1000, true)).to.equal(QUIET);
    c.fired();
    expect(c.event('change', 1000 + QUIET - 1, false)).to.equal(QUIET);
    c.fired();
    expect(c.event('change', 1000 + 2 * QUIET, false)).to.equal(SETTLE);
  });

  it('makes a removal wait for quiet, also one inside a leading window', () => {
    const c = new SaveCoalescer(QUIET, SETTLE);
    expect(c.event('unlink', 1000, false)).to.equal(QUIET);
    c.fired();
    const d = new SaveCoalescer(QUIET, SETTLE);
    expect(d.event('change', 1000, false)).to.equal(SETTLE);
    // a checkout: a file deleted before its successor is written
    expect(d.event('unlink', 1010, false)).to.equal(QUIET);
    expect(d.event('add', 1020, false)).to.equal(QUIET);
    expect(d.event('unlinkDir', 1030, false)).to.equal(QUIET);
  });
});
