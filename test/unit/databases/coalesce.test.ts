import { expect } from 'chai';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { coalesce } from '../../../controller/databases/storage/coalesce.js';

/** The chunks a writer is handed, one write each. */
async function written(source: Readable): Promise<Buffer[]> {
  const out: Buffer[] = [];
  await pipeline(source, coalesce(1000), new Writable({ write(chunk: Buffer, _enc, done) { out.push(chunk); done(); } }));
  return out;
}

describe('coalescing a dump\'s chunks before they are written', () => {
  it('joins small chunks into ones of at least the size asked, keeping every byte in order', async () => {
    const chunks = Array.from({ length: 10 }, (_, i) => Buffer.alloc(300, i));
    const out = await written(Readable.from(chunks));
    expect(out.map((c) => c.length)).to.deep.equal([1200, 1200, 600]);
    expect(Buffer.concat(out).equals(Buffer.concat(chunks))).to.equal(true);
  });

  it('passes an empty stream through empty', async () => {
    expect(await written(Readable.from([]))).to.deep.equal([]);
  });
});
