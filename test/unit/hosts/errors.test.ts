import { expect } from 'chai';
import { CommandFailed, CommandTimeout, HostKeyMismatch, HostUnreachable } from '../../../controller/hosts/errors.js';

describe('host errors', () => {
  it('marks unreachable hosts and timeouts retryable', () => {
    expect(new HostUnreachable('s1', 'ECONNREFUSED').retryable).to.equal(true);
    expect(new CommandTimeout('s1', 'sleep 10', 500).retryable).to.equal(true);
  });

  it('marks failed commands and host key mismatches terminal', () => {
    expect(new CommandFailed('s1', 'false', 1, '').retryable).to.equal(false);
    expect(new HostKeyMismatch('s1', 'SHA256:a', 'SHA256:b').retryable).to.equal(false);
  });

  it('shows expected and actual fingerprints in a host key mismatch', () => {
    const err = new HostKeyMismatch('s1', 'SHA256:old', 'SHA256:new');
    expect(err.message).to.equal('host key of s1 changed: expected SHA256:old, got SHA256:new');
    expect(err.code).to.equal('HOST_KEY_MISMATCH');
    expect(err.name).to.equal('HostKeyMismatch');
  });

  it('keeps only the tail of a long stderr on a failed command', () => {
    const err = new CommandFailed('s2', 'docker pull x', 1, `${'x'.repeat(5000)}\nError: manifest unknown\n`);
    expect(err.exitCode).to.equal(1);
    expect(err.stderrTail).to.have.length(2000);
    expect(err.stderrTail.endsWith('Error: manifest unknown')).to.equal(true);
    expect(err.message).to.match(/^command on s2 exited 1: docker pull x\n/);
  });
});
