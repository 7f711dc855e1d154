import { expect } from 'chai';
import { driftEffect, statusOfReasons } from '../../../controller/model/drift-effect.js';

describe('what the drift policy does about a missing or stopped container (drift-effect.ts)', () => {
  it('says it for missing and stopped only, by policy', () => {
    expect(driftEffect('warn', 'missing')).to.equal('not restored: driftPolicy warn');
    expect(driftEffect('warn', 'stopped')).to.equal('not restored: driftPolicy warn');
    expect(driftEffect('heal', 'missing')).to.equal('to be restored: driftPolicy heal');
    expect(driftEffect('off', 'stopped')).to.equal('not watched: driftPolicy off');
    for (const status of ['running', 'pending', 'failed', 'unknown']) expect(driftEffect('warn', status), status).to.equal(null);
  });

  it('reads the status from a drift look\'s reasons, missing first', () => {
    expect(statusOfReasons(['ContainerMissing', 'ImageChanged'])).to.equal('missing');
    expect(statusOfReasons(['ContainerStopped'])).to.equal('stopped');
    expect(statusOfReasons(['EnvChanged'])).to.equal(null);
  });
});
