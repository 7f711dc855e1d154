// bench/render.ts - render 1,000 config files of ~10 KB with 50 placeholders each (vars, secrets
// and a fragment include) and print files per second.   npx tsx bench/render.ts [rounds=5]
import { render } from '../controller/config-files/render.js';
import { Secret } from '../controller/config-files/secret.js';

const rounds = Number(process.argv[2] ?? 5);
const FILES = 1000;
const PLACEHOLDERS = 50;
const SIZE = 10 * 1024;

const vars = new Map<string, string>();
const secrets = new Map<string, Secret>();
for (let i = 0; i < 40; i++) vars.set(`VAR_${i}`, `value-${i}`);
for (let i = 0; i < 10; i++) secrets.set(`SECRET_${i}`, new Secret(`s3cr3t-${i}-${'x'.repeat(20)}`));
const fragments = new Map([['common', 'log_level=${VAR_1}\n']]);
const ctx = { vars, secrets, fragments };

function template(n: number): string {
  const filler = `# file ${n}: ${'lorem ipsum dolor sit amet '.repeat(6)}\n`;
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; i < PLACEHOLDERS - 1; i++) {
    const key = i % 5 === 0 ? `SECRET_${i % 10}` : `VAR_${i % 40}`;
    const line = `setting_${i}=\${${key}}\n${filler}`;
    lines.push(line);
    size += line.length;
  }
  lines.push('${fragment:common}');
  while (size < SIZE) {
    lines.push(filler);
    size += filler.length;
  }
  return lines.join('');
}

const templates = Array.from({ length: FILES }, (_, i) => template(i));
const avgKb = templates.reduce((n, t) => n + t.length, 0) / FILES / 1024;
let sink = 0;
for (const t of templates) sink += render(t, ctx).content.length; // warm-up: one full pass
const rates: number[] = [];
for (let r = 0; r < rounds; r++) {
  const start = performance.now();
  for (const t of templates) sink += render(t, ctx).content.length;
  rates.push(FILES / ((performance.now() - start) / 1000));
}
rates.sort((a, b) => a - b);
console.log(`render: ${FILES} files of ${avgKb.toFixed(1)} KB with ${PLACEHOLDERS} placeholders, ${rounds} rounds`);
console.log(`files/s: median ${Math.round(rates[Math.floor(rounds / 2)])}, min ${Math.round(rates[0])}, max ${Math.round(rates[rounds - 1])} (target > 5000)`);
if (sink === 0) console.log('');
