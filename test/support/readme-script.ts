// README's Getting started as one bash script (test/e2e/getting-started.test.ts runs it): its
// ```sh blocks in order, the first block's values replaced for the fleet the test runs on, and
// each command marked as failing on purpose (README: a comment on the command's line starting
// `# exit N` or `# refused (exit N)`) wrapped so it must exit with exactly that code. Every other command
// runs under `set -eEo pipefail`: its failure ends the script.

/** The ```sh blocks of the README section that starts with `heading`, up to the next `## `. */
export function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section ${heading}`);
  const rest = readme.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** The exit code a line's comment says the command ends with on purpose, or null. */
export function expectedExit(line: string): number | null {
  const m = /\s#\s*(?:exit (\d+)|refused \(exit (\d+)\))/.exec(line);
  return m ? Number(m[1] ?? m[2]) : null;
}

/**
 * A marked command as a bash statement that fails the script unless the command exits with
 * exactly `code` (the command is not subject to -e inside the `if`).
 */
export function expectExitStatement(command: string, code: number): string {
  const shown = JSON.stringify(command).slice(1, -1).replace(/'/g, `'\\''`);
  return `if ${command}; then echo 'README: exited 0, expected ${code}: ${shown}' >&2; exit 90; `
    + `else __rc=$?; [ "$__rc" = ${code} ] || { echo "README: exited $__rc, expected ${code}: ${shown}" >&2; exit 91; }; fi`;
}

/** One block's lines with the marked commands wrapped; a marked line must be a whole command. */
export function withExpectedExits(block: string): string {
  return block.split('\n').map((line, i, lines) => {
    const code = expectedExit(line);
    if (code === null || line.trimStart().startsWith('#')) return line;
    const command = line.slice(0, line.search(/\s#\s*(?:exit|refused)/)).trimEnd();
    const continued = i > 0 && /(\\|\||&&)\s*$/.test(lines[i - 1]);
    if (continued || /(\\|\||&&)$/.test(command)) throw new Error(`a command marked as failing must stand on one line: ${line}`);
    return expectExitStatement(command, code);
  }).join('\n');
}

/** `first` with each `from` replaced by its `to`; each must occur, or the README changed under the test. */
export function replaceValues(first: string, values: Array<[string, string]>): string {
  let out = first;
  for (const [from, to] of values) {
    if (!out.includes(from)) throw new Error(`the first block of Getting started no longer holds ${from}`);
    out = out.split(from).join(to);
  }
  return out;
}

/** The script: the preamble, then every block (the first one's values replaced), marked commands wrapped. */
export function gettingStartedScript(readme: string, values: Array<[string, string]>, preamble: string): { script: string; blocks: string[] } {
  const blocks = shellBlocks(readme, '## Getting started');
  if (blocks.length < 2) throw new Error('Getting started has no shell blocks');
  const run = [replaceValues(blocks[0], values), ...blocks.slice(1)].map(withExpectedExits);
  return { script: [preamble, ...run.map((b, i) => `# --- block ${i + 1}\n${b}`)].join('\n'), blocks };
}
