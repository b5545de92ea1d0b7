import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatClassesSolve } from '../../src/cli/classesFormat.js';
import { solveClassesScenario } from '../../src/solve/classes/solveClasses.js';

/** The text summary of a classes solve states its percentiles, or why there are none (never silent). */
describe('classes summary (cli/classesFormat.ts)', () => {
  const file = JSON.parse(readFileSync('examples/two-classes.json', 'utf8')) as { classes: unknown[] };

  it('one class: the single-class solve’s five percentiles, in milliseconds, under the class’s name', async () => {
    const r = await solveClassesScenario({ ...file, classes: file.classes.slice(0, 1) });
    const l = r.single!.latency!;
    const line = formatClassesSolve(r).split('\n').find((x) => x.includes('response time'));
    expect(line).toBeDefined();
    expect(line).toContain('class small: response time p50');
    expect(line).toContain(`p99 ${(l.p99 * 1e3).toPrecision(3)} ms`);
    expect(line).toContain(`p99.9 ${(l.p999 * 1e3).toPrecision(3)} ms`);
  }, 60_000);

  it('two classes: the reason the per-class percentiles are missing', async () => {
    const r = await solveClassesScenario(file);
    expect(r.latencyUnavailable).toBeDefined();
    expect(formatClassesSolve(r)).toContain(`response time percentiles unavailable: ${r.latencyUnavailable}`);
    expect(formatClassesSolve(r)).not.toMatch(/p99 /);
  }, 60_000);
});
