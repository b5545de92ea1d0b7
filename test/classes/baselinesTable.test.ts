import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEGIN, DOC, END, SCENARIOS } from '../../scripts/classesBaselines.js';

/** The generated baseline table of docs/classes-baselines.md (issue 19): every scenario and policy, and no row beating the optimum. */
const POLICIES = ['exact optimum', 'exhaustive longest queue', 'control limits, round-robin', 'FIFO by oldest request', 'Triton-like per model', 'REINFORCE agent', 'PPO agent'];

describe('scripts/classesBaselines.ts', () => {
  const doc = readFileSync(new URL(`../../${DOC}`, import.meta.url), 'utf8');
  const block = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END));
  const rows = block.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| policy'));

  it(`${DOC} holds one table per scenario with every policy`, () => {
    expect(doc.indexOf(BEGIN)).toBeGreaterThan(0);
    for (const s of SCENARIOS) expect(block).toContain(`\`${s.file}\``);
    expect(rows).toHaveLength(SCENARIOS.length * POLICIES.length);
    for (const p of POLICIES) expect(rows.filter((r) => r.startsWith(`| ${p} |`))).toHaveLength(SCENARIOS.length);
  });

  it('no policy beats the simulated optimum beyond its paired interval', () => {
    for (const r of rows) {
      const cells = r.split('|').map((c) => c.trim());
      const [gap, ci] = cells[cells.length - 3].split('±').map(Number);
      expect(Number.isFinite(gap) && Number.isFinite(ci)).toBe(true);
      expect(gap + ci).toBeGreaterThanOrEqual(0);
    }
  });
});
