import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, DOC, END, SCENARIOS, replaceGenerated } from '../../scripts/exportTable.js';
import { EXPORT_TARGETS, TARGETS } from '../../src/plan/export/targets.js';

/** The generated export table in docs/planning.md: where the script writes it, and that it holds every row. */
describe('scripts/exportTable.ts', () => {
  it('replaces only the text between its markers, and refuses a document without exactly one pair', () => {
    const doc = `a\n${BEGIN}\nold\n${END}\nb\n`;
    expect(replaceGenerated(doc, 'new\n')).toBe(`a\n${BEGIN}\nnew\n${END}\nb\n`);
    expect(replaceGenerated(replaceGenerated(doc, 'new\n'), 'new\n')).toBe(`a\n${BEGIN}\nnew\n${END}\nb\n`);
    expect(() => replaceGenerated('no markers', 'x')).toThrow(/must hold the markers/);
    expect(() => replaceGenerated(`${END}\n${BEGIN}\n`, 'x')).toThrow(/must hold the markers/);
    expect(() => replaceGenerated(`${doc}${BEGIN}\n`, 'x')).toThrow(/must hold the markers/);
  });

  it(`${DOC} holds the generated table: one row per scenario and target`, () => {
    const doc = readFileSync(new URL(`../../${DOC}`, import.meta.url), 'utf8');
    const block = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END));
    const rows = block.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| scenario'));
    expect(rows).toHaveLength(SCENARIOS.length * EXPORT_TARGETS.length);
    for (const s of SCENARIOS) expect(block).toContain(`\`${s.file}\``);
    for (const t of EXPORT_TARGETS) expect(rows.filter((r) => r.includes(`| ${TARGETS[t].label} |`))).toHaveLength(SCENARIOS.length);
  });
});
