import { describe, expect, it } from 'vitest';
import { renderSwitchingSvg, switchingChartRange } from '../../src/plan/svg/switchingChart.js';
import type { ClassesSolveResult } from '../../src/solve/classes/result.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';
import { scenarioOf, type CaseClass } from '../classes/support.js';
import { parseXml, type XmlElement } from './xmlCheck.js';

/**
 * The two-class policy chart (docs/model.md §10): well-formed XML, one cell per state of the
 * drawn grid whose action is the policy table's, the switching curve passing under exactly the
 * cells where class 2 is first served, each control limit marked, the classes in the title.
 */
const a: CaseClass = { name: 'vision', rate: 150, B: 3, perItem: 0.001, base: 0.002, law: 'DETERMINISTIC', powerPerItem: 3, powerBase: 80, w: 1 };
const b: CaseClass = { ...a, name: 'language', rate: 80, B: 2, law: 'GAMMA', cv: 0.8, w: 2 };

function cellsOf(els: XmlElement[]): Array<{ n1: number; n2: number; cls: number; batch: number }> {
  return els
    .filter((e) => e.name === 'rect' && e.attrs.class === 'state')
    .map((e) => ({ n1: Number(e.attrs['data-n1']), n2: Number(e.attrs['data-n2']), cls: Number(e.attrs['data-class']), batch: Number(e.attrs['data-batch']) }));
}

describe('switching-curve chart of a two-class solve', () => {
  let result: ClassesSolveResult;

  it('one cell per drawn state, each with the policy table’s action; limits and names shown', async () => {
    result = await solveClassesScenario(scenarioOf([{ ...a, S: 18 }, { ...b, S: 14 }], 40, 1e-3, 1e-9));
    const svg = renderSwitchingSvg(result);
    const els = parseXml(svg);
    const cells = cellsOf(els);
    const [t1, t2] = switchingChartRange(result);
    expect(cells).toHaveLength((t1 + 1) * (t2 + 1));
    const seen = new Set(cells.map((c) => `${c.n1},${c.n2}`));
    expect(seen.size).toBe(cells.length);
    const S2 = result.policy.maxQueue[1];
    for (const c of cells) {
      expect(c.n1 >= 0 && c.n1 <= t1 && c.n2 >= 0 && c.n2 <= t2).toBe(true);
      const x = c.n1 * (S2 + 1) + c.n2;
      expect([c.cls, c.batch], `state (${c.n1}, ${c.n2})`).toEqual([result.policy.serveClass[x], result.policy.batch[x]]);
    }
    // Both actions and waiting appear in the drawn part (the chart shows a real switch).
    expect(new Set(cells.map((c) => c.cls))).toEqual(new Set([-1, 0, 1]));
    const title = els.find((e) => e.name === 'title' && e.parent?.name === 'svg')!.text;
    expect(title).toContain('vision');
    expect(title).toContain('language');
    expect(els.find((e) => e.attrs.class === 'subtitle')!.text).toMatch(/vision: λ = 150 \/s, B = 3; language: λ = 80 \/s, B = 2/);
    const limits = els.filter((e) => e.name === 'line' && e.attrs.class === 'control-limit').map((e) => [Number(e.attrs['data-class']), Number(e.attrs['data-limit'])]);
    expect(limits).toEqual(result.policy.controlLimits.map((l, c) => [c, l]));
  }, 60_000);

  it('the switching curve is the lower edge of the first class-2 cell of each column, read back from the path', () => {
    const svg = renderSwitchingSvg(result);
    const els = parseXml(svg);
    const cells = cellsOf(els);
    const rects = els.filter((e) => e.name === 'rect' && e.attrs.class === 'state');
    // Pixel rows: the bottom edge (y + height) of each cell, by its n2.
    const bottom = new Map(rects.map((e) => [Number(e.attrs['data-n2']), Number(e.attrs.y) + Number(e.attrs.height)]));
    const d = els.find((e) => e.attrs.class === 'switching-curve')!.attrs.d;
    const ys = [...d.matchAll(/(?:,|V)(-?[\d.]+)/g)].map((m) => Number(m[1]));
    const [t1, t2] = switchingChartRange(result);
    const expected: number[] = [];
    for (let n1 = 0; n1 <= t1; n1++) {
      const first = cells.filter((c) => c.n1 === n1 && c.cls === 1 && c.n2 >= 1).map((c) => c.n2);
      if (first.length === 0 || Math.min(...first) > t2) continue;
      expected.push(bottom.get(Math.min(...first))!);
    }
    // One y per column drawn (a V only where the curve moves); compare the distinct runs.
    const runs = (v: number[]) => v.filter((y, i) => i === 0 || Math.abs(y - v[i - 1]) > 0.01);
    expect(runs(ys).map((y) => y.toFixed(1))).toEqual(runs(expected).map((y) => y.toFixed(1)));
  });
});
