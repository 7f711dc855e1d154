import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileSink } from '../../../controller/databases/storage/file-sink.js';

describe('writing a dump to a file through one reused buffer', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'file-sink-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** This process's open descriptors on `file` (others come and go with the tests around). */
  const openOn = (file: string) => fs.readdirSync('/proc/self/fd').filter((fd) => {
    try { return fs.readlinkSync(`/proc/self/fd/${fd}`) === file; } catch { return false; }
  }).length;

  it('keeps every byte in order across chunks smaller and larger than the buffer, in a file only its owner reads', async () => {
    const chunks = [300, 300, 2500, 1, 999, 1000, 7].map((n, i) => Buffer.alloc(n, i + 1));
    const file = path.join(dir, 'dump');
    await pipeline(Readable.from(chunks), fileSink(file, 1000));
    expect(fs.readFileSync(file).equals(Buffer.concat(chunks))).to.equal(true);
    expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
  });

  it('an empty stream gives an empty file', async () => {
    const file = path.join(dir, 'empty');
    await pipeline(Readable.from([]), fileSink(file, 1000));
    expect(fs.statSync(file).size).to.equal(0);
  });

  it('a source that fails fails the pipeline and closes the file', async () => {
    const file = path.join(dir, 'broken');
    const failing = new Readable({ read() { this.push(Buffer.alloc(1500, 1)); this.destroy(new Error('dump died')); } });
    const sink = fileSink(file, 1000);
    const err = await pipeline(failing, sink).catch((e: Error) => e);
    expect((err as Error).message).to.equal('dump died');
    if (!sink.closed) await new Promise((r) => sink.once('close', r)); // pipeline settles on the error; the close follows
    expect(fs.existsSync(file)).to.equal(true); // it was opened (and written to) ...
    expect(openOn(file)).to.equal(0); // ... and is closed
  });

  it('a file that cannot be created fails the pipeline', async () => {
    const err = await pipeline(Readable.from([Buffer.from('x')]), fileSink(path.join(dir, 'no/such/folder/dump'))).catch((e: NodeJS.ErrnoException) => e);
    expect((err as NodeJS.ErrnoException).code).to.equal('ENOENT');
  });
});
