/**
 * Runs only the scale-out benchmark and merges its section into bench/results/latest.json and
 * docs/benchmarks.md, leaving the other benches' sections as they are (`npm run bench -- --only
 * scaleout` would rewrite both files with this section alone). Rendering is bench/run.ts's.
 *
 *   BATCHWISE_BENCH_REDIS=redis://127.0.0.1:6379 npx tsx bench/scaleout.publish.ts [--quick]
 *
 * With --quick it only prints the section (the published figures are from the full batch).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import run from './scaleout.bench.js';
import type { BenchSection } from './types.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One section in bench/run.ts's Markdown form. */
function sectionMarkdown(s: BenchSection): string[] {
  const lines = [`## ${s.name}`, ''];
  if (s.machineNote) lines.push(s.machineNote, '');
  if (s.rows.length > 0) {
    const cols = [...new Set(s.rows.flatMap((r) => Object.keys(r)))];
    lines.push(`| ${cols.join(' | ')} |`, `| ${cols.map(() => '---').join(' | ')} |`);
    for (const r of s.rows) lines.push(`| ${cols.map((c) => String(r[c] ?? '')).join(' | ')} |`);
    lines.push('');
  }
  for (const n of s.notes ?? []) lines.push(`- ${n}`);
  if (s.notes?.length) lines.push('');
  return lines;
}

/** Replaces the `## name` block of a generated Markdown file (up to the next `## `), or appends it. */
function mergeMarkdown(text: string, s: BenchSection): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  const start = lines.indexOf(`## ${s.name}`);
  const block = sectionMarkdown(s);
  if (start < 0) return [...lines, '', ...block].join('\n').replace(/\n+$/, '\n');
  let end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  if (end < 0) end = lines.length;
  return [...lines.slice(0, start), ...block, ...lines.slice(end)].join('\n').replace(/\n+$/, '\n');
}

const quick = process.argv.includes('--quick');
const section = await run({ quick, log: (m) => console.error(`[bench:scaleout] ${m}`) });
console.log(sectionMarkdown(section).join('\n'));
if (!quick && section.rows.length > 0) {
  const jsonPath = join(root, 'bench', 'results', 'latest.json');
  const json = existsSync(jsonPath) ? (JSON.parse(readFileSync(jsonPath, 'utf8')) as { sections?: BenchSection[] }) : { sections: [] };
  const sections = (json.sections ?? []).filter((s) => s.name !== section.name);
  writeFileSync(jsonPath, `${JSON.stringify({ ...json, sections: [...sections, section] }, null, 2)}\n`);
  const mdPath = join(root, 'docs', 'benchmarks.md');
  writeFileSync(mdPath, mergeMarkdown(existsSync(mdPath) ? readFileSync(mdPath, 'utf8') : '# Benchmarks\n', section));
  console.error('[bench:scaleout] merged into bench/results/latest.json and docs/benchmarks.md');
}
