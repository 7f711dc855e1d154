import { expect } from 'chai';
import ssh2 from 'ssh2';
import { algorithmOf } from '../../../controller/hosts/scan-host-key.js';

/** An SSH public key blob, what a server presents: the base64 field of an OpenSSH public key line. */
const blobOf = (type: 'ed25519' | 'rsa') =>
  Buffer.from(ssh2.utils.generateKeyPairSync(type, type === 'rsa' ? { bits: 1024 } : {}).public.split(' ')[1]!, 'base64');

describe('algorithmOf: the type an SSH public key blob names', () => {
  it('reads ssh-ed25519 and ssh-rsa from real key blobs', () => {
    expect(algorithmOf(blobOf('ed25519'))).to.equal('ssh-ed25519');
    expect(algorithmOf(blobOf('rsa'))).to.equal('ssh-rsa');
  });

  it('answers unknown for a blob too short or with a length past its end', () => {
    expect(algorithmOf(Buffer.alloc(2))).to.equal('unknown');
    const lying = Buffer.alloc(8);
    lying.writeUInt32BE(100, 0);
    expect(algorithmOf(lying)).to.equal('unknown');
    expect(algorithmOf(Buffer.alloc(4))).to.equal('unknown');
  });
});
