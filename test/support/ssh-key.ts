import ssh2 from 'ssh2';

/**
 * A fresh ed25519 key pair in OpenSSH format. ssh2's own generator now and then (about 1 in 1,000
 * here) writes a private key its parser then calls malformed, which made tests flaky; we keep
 * only pairs that parse.
 */
export function newSshKeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
}
