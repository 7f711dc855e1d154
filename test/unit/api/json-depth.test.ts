import { expect } from 'chai';
import { jsonDepth } from '../../../api/middleware/json-body.js';

const depthOf = (value: unknown) => jsonDepth(Buffer.from(JSON.stringify(value)));

describe('unit: JSON depth scanner', () => {
  it('counts nested objects and arrays, not brackets inside strings', () => {
    expect(depthOf({ a: [[1]] })).to.equal(3);
    expect(depthOf({ a: '[[[[{{{{' })).to.equal(1);
    expect(depthOf('no nesting')).to.equal(0);
  });

  it('an escaped quote does not end a string: brackets after it, inside the string, are not nesting', () => {
    const text = { a: '"[[[[{{{{', b: ['x"]]]]}}}}"'] };
    expect(JSON.stringify(text)).to.include('\\"[[[[');
    expect(depthOf(text)).to.equal(2);
  });

  it('nesting after a string holding an escaped quote is counted', () => {
    const value = ['"]]]]', [[[['deep']]]]];
    expect(JSON.stringify(value)).to.include('"\\"]]]]"');
    expect(depthOf(value)).to.equal(5);
  });

  it('an escaped backslash before the closing quote ends the string, so what follows is counted', () => {
    const value = ['ends in a backslash \\', [[['deep']]]];
    expect(JSON.stringify(value)).to.include('\\\\"');
    expect(depthOf(value)).to.equal(4);
  });

  it('reads every JSON escape next to brackets as text, in keys and in values', () => {
    const tricky = String.raw`\\\"[{\u0022]}\n\t\/`; // JSON escapes: \\ \" \u0022 \n \t \/
    const text = `[{"k${tricky}":"${tricky}"},[["${tricky}"]]]`;
    expect(() => JSON.parse(text)).to.not.throw();
    expect(jsonDepth(Buffer.from(text))).to.equal(3);
  });
});
