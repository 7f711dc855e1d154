// YAML texts that attack a parser: shared by the unit and API tests of the YAML limits.

/** Billion laughs: ten aliases of the level below, nine levels deep (10^9 nodes once expanded). */
export function aliasBomb(key = 'bomb'): string {
  const lines = [`a0: &a0 [${Array(10).fill('"lol"').join(', ')}]`];
  for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
  return `${key}:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/** Merge keys, each level merging the one below twice: 2^levels keys once expanded. */
export function mergeKeyBomb(key = 'bomb', levels = 50): string {
  const lines = ['b0: &b0 {k0: 1}'];
  for (let i = 1; i < levels; i++) lines.push(`b${i}: &b${i} {<<: [*b${i - 1}, *b${i - 1}], k${i}: 1}`);
  return `${key}:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

/** Flow sequences nested deeper than any stack. */
export function deepNesting(key = 'bomb', depth = 20_000): string {
  return `${key}: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

/** `count` empty documents: 4 bytes each. */
export const emptyDocuments = (count: number): string => '---\n'.repeat(count);

/** Refused by a limit: 400 on every route, the manifests diff included. */
export const BOMBS: Record<string, (key?: string) => string> = { 'an alias bomb': aliasBomb, 'a 50-level merge-key bomb': mergeKeyBomb };
