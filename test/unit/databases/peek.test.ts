import { expect } from 'chai';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { compressesItself, peek } from '../../../controller/databases/storage/peek.js';

describe('peeking at a dump', () => {
  it('returns the first chunk and leaves every byte for the next reader', async () => {
    const source = new PassThrough();
    const first = peek(source);
    source.write('PGDMP head');
    expect((await first)!.toString()).to.equal('PGDMP head');
    source.end(' and the rest');
    expect(await text(source)).to.equal('PGDMP head and the rest');
  });

  it('resolves null for a stream that ends empty, and rejects with the stream\'s error', async () => {
    expect(await peek(Readable.from([]))).to.equal(null);
    const failing = new PassThrough();
    const peeked = peek(failing);
    failing.destroy(new Error('channel closed'));
    await peeked.then(() => expect.fail('resolved'), (err: Error) => expect(err.message).to.equal('channel closed'));
  });

  it('knows a pg_dump custom-format archive and a gzip stream compress themselves, SQL text does not', () => {
    expect(compressesItself(Buffer.from('PGDMP\x01\x0f\x00'))).to.equal(true);
    expect(compressesItself(gzipSync('select 1'))).to.equal(true);
    expect(compressesItself(Buffer.from('-- MariaDB dump 10.19'))).to.equal(false);
    expect(compressesItself(null)).to.equal(false);
  });
});
