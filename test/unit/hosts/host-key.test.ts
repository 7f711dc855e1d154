import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { fingerprintOf } from '../../../controller/hosts/host-key.js';

describe('host key fingerprint', () => {
  it('matches what ssh-keygen -lf prints for the same key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stevedore-hostkey-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k')]);
      const blob = Buffer.from(readFileSync(join(dir, 'k.pub'), 'utf8').split(' ')[1]!, 'base64');
      const expected = execFileSync('ssh-keygen', ['-lf', join(dir, 'k.pub')], { encoding: 'utf8' }).split(' ')[1];
      expect(fingerprintOf(blob)).to.equal(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
