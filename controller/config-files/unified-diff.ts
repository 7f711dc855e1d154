/**
 * A unified diff (as `diff -u` prints it) of two texts, line by line, with Myers' O(ND) shortest
 * edit script. Written here because no diff library is a declared dependency; config files are
 * small, so the trace of the search (O(D·(N+M))) is affordable after trimming common ends.
 */
type Op = { t: ' ' | '-' | '+'; line: string };

const splitLines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

function editScript(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const head: Op[] = a.slice(0, pre).map((line) => ({ t: ' ', line }));
  const tail: Op[] = a.slice(a.length - suf).map((line) => ({ t: ' ', line }));
  return [...head, ...myers(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf)), ...tail];
}

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const off = max;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[off + k - 1] < vd[off + k + 1]) ? k + 1 : k - 1;
    const prevX = vd[off + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ t: ' ', line: a[--x] });
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ t: '+', line: b[--y] });
      else ops.push({ t: '-', line: a[--x] });
    }
  }
  return ops.reverse();
}

const range = (start: number, len: number) => (len === 1 ? `${start}` : `${len === 0 ? start - 1 : start},${len}`);

/** '' when the texts are equal; otherwise the diff with `--- oldLabel` / `+++ newLabel` headers. */
export function unifiedDiff(oldText: string, newText: string, oldLabel = 'a', newLabel = 'b', context = 3): string {
  if (oldText === newText) return '';
  const ops = editScript(splitLines(oldText), splitLines(newText));
  const changes: number[] = [];
  ops.forEach((op, i) => op.t !== ' ' && changes.push(i));
  if (changes.length === 0) return '';
  // line numbers before each op
  const oldAt = new Int32Array(ops.length + 1);
  const newAt = new Int32Array(ops.length + 1);
  ops.forEach((op, i) => {
    oldAt[i + 1] = oldAt[i] + (op.t !== '+' ? 1 : 0);
    newAt[i + 1] = newAt[i] + (op.t !== '-' ? 1 : 0);
  });
  const out = [`--- ${oldLabel}\n`, `+++ ${newLabel}\n`];
  let c = 0;
  while (c < changes.length) {
    // one hunk: changes closer than 2×context lines share it, with context lines around
    const firstChange = changes[c];
    let last = firstChange;
    while (c + 1 < changes.length && changes[c + 1] - last - 1 <= 2 * context) last = changes[++c];
    c++;
    const start = Math.max(0, firstChange - context);
    const end = Math.min(ops.length, last + context + 1);
    const oldLen = oldAt[end] - oldAt[start];
    const newLen = newAt[end] - newAt[start];
    out.push(`@@ -${range(oldAt[start] + 1, oldLen)} +${range(newAt[start] + 1, newLen)} @@\n`);
    for (let i = start; i < end; i++) {
      const { t, line } = ops[i];
      out.push(t + line + (line.endsWith('\n') ? '' : '\n\\ No newline at end of file\n'));
    }
  }
  return out.join('');
}
