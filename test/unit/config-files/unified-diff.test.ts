import { expect } from 'chai';
import { unifiedDiff } from '../../../controller/config-files/unified-diff.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

describe('unified diff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).to.equal('');
  });

  it('prints separate hunks with three lines of context, as diff -u does', () => {
    const a = lines(20);
    const b = a.replace('line 2\n', 'line two\n').replace('line 15\n', '');
    expect(unifiedDiff(a, b, 'a/f', 'b/f')).to.equal([
      '--- a/f', '+++ b/f',
      '@@ -1,5 +1,5 @@', ' line 1', '-line 2', '+line two', ' line 3', ' line 4', ' line 5',
      '@@ -12,7 +12,6 @@', ' line 12', ' line 13', ' line 14', '-line 15', ' line 16', ' line 17', ' line 18', '',
    ].join('\n'));
  });

  it('merges changes closer than twice the context into one hunk', () => {
    const a = lines(10);
    const b = a.replace('line 3\n', 'x\n').replace('line 8\n', 'y\n');
    expect(unifiedDiff(a, b).match(/^@@/gm)).to.have.length(1);
  });

  it('shows a new file against /dev/null and marks a missing final newline', () => {
    expect(unifiedDiff('', 'one\ntwo', '/dev/null', 'b/f')).to.equal(
      '--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n');
  });

  it('prints a one-line range without its count and marks a final newline lost on one side only', () => {
    expect(unifiedDiff('x\ny\n', 'x\nz')).to.equal(
      '--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n\\ No newline at end of file\n');
    expect(unifiedDiff('only\n', 'other\n')).to.equal('--- a\n+++ b\n@@ -1 +1 @@\n-only\n+other\n');
  });

  it('applying the hunks to the old text gives the new text', () => {
    const a = 'k=1\nx=2\ny=3\nz=4\n';
    const b = 'k=1\nx=20\ny=3\nw=5\nz=4\n';
    const diff = unifiedDiff(a, b);
    const kept = diff.split('\n').slice(3).filter((l) => l.startsWith(' ') || l.startsWith('+')).map((l) => l.slice(1));
    expect(kept.join('\n') + '\n').to.equal(b);
  });
});

describe('redacted diff of a target', () => {
  it('replaces current and earlier secret values, multi-line ones included, before diffing', async () => {
    const { redactedDiff } = await import('../../../controller/config-files/redacted-diff.js');
    const key = '-----BEGIN KEY-----\nAAAA\nBBBB\n-----END KEY-----';
    const diff = redactedDiff(`token=old-value\n${key}\n`, `token=new-value\n${key}\n`, '/etc/app.conf', false, [key, 'new-value', 'old-value']);
    expect(diff).to.equal('--- a/etc/app.conf\n+++ b/etc/app.conf\n@@ -1,2 +1,2 @@\n-token=[REDACTED#3]\n+token=[REDACTED#2]\n [REDACTED#1]\n');
    expect(diff).to.not.match(/old-value|new-value|AAAA/);
  });
});
