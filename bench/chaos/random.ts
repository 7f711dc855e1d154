// The chaos harness's seeded random source: every choice of a run (the workload, which fault,
// its target, its hold) is drawn from it, so `--seed S` replays the same choices. Two streams
// from one seed: the faults' draws do not shift when the workload, which runs alongside at the
// machine's pace, draws more or fewer times.

/** mulberry32: a small, fast 32-bit PRNG; the same seed gives the same sequence on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One element of xs, drawn with random. */
export function pickWith<T>(random: () => number, xs: readonly T[]): T {
  if (xs.length === 0) throw new Error('nothing to pick from');
  return xs[Math.floor(random() * xs.length)]!;
}

/** A copy of xs in an order drawn with random (Fisher-Yates). */
export function shuffled<T>(random: () => number, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A value in [min, max), drawn with random. */
export const between = (random: () => number, min: number, max: number): number => min + random() * (max - min);

/** One of the weighted choices, drawn with random. */
export function weighted<T>(random: () => number, choices: ReadonlyArray<readonly [T, number]>): T {
  const total = choices.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [value, w] of choices) {
    if ((r -= w) < 0) return value;
  }
  return choices.at(-1)![0];
}

/** The streams of a run: faults (choice, target, hold) and workload (operations, pacing). */
export function streams(seed: number): { faults: () => number; workload: () => number } {
  return { faults: seededRandom(seed), workload: seededRandom(seed ^ 0x9e3779b9) };
}
