import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SolveResult } from '../../src/solve/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { runCli } from '../helpers/cli.js';
import { cheapScenario, directPercentiles, expectPercentilesOf } from '../helpers/latency.js';

const dir = mkdtempSync(join(tmpdir(), 'batchwise-pct-'));
const file = (name: string, json: unknown): string => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(json));
  return p;
};

describe('CLI: percentiles in solve, evaluate and sweep', () => {
  const s = cheapScenario();
  const path = file('cheap.json', s);

  it('solve --json carries the latency object; the summary prints it; --no-percentiles leaves both out', async () => {
    const json = await runCli('solve', path, '--json');
    expect(json.code).toBe(0);
    const r = JSON.parse(json.out) as SolveResult;
    expectPercentilesOf(s, r);
    const human = await runCli('solve', path);
    const l = r.latency!;
    const ms = (v: number): string => (v * 1e3).toPrecision(3).replace('.', '\\.');
    expect(human.out).toMatch(new RegExp(`response time +p50 ${ms(l.p50)} ms +p90 ${ms(l.p90)} ms +p95 ${ms(l.p95)} ms +p99 ${ms(l.p99)} ms +p99\\.9 ${ms(l.p999)} ms +\\(±\\S+ relative\\)`));
    const skipped = await runCli('solve', path, '--json', '--no-percentiles');
    expect('latency' in (JSON.parse(skipped.out) as object)).toBe(false);
    expect((await runCli('solve', path, '--no-percentiles')).out).not.toMatch(/response time +p50/);
  });

  it('evaluate --json and its summary', async () => {
    const json = await runCli('evaluate', path, '--policy', 'static:1', '--json');
    expect(json.code).toBe(0);
    expectPercentilesOf(s, JSON.parse(json.out) as SolveResult, 'static:1');
    expect((await runCli('evaluate', path, '--policy', 'static:1')).out).toMatch(/response time +p50 [\d.]+ ms/);
    expect('latency' in (JSON.parse((await runCli('evaluate', path, '--policy', 'static:1', '--json', '--no-percentiles')).out) as object)).toBe(false);
  });

  it('sweep --format csv: p50_ms … p999_ms equal the direct percentiles; empty with --no-percentiles', async () => {
    const grid = file('grid.json', { grid: { base: s, arrivalRate: [200, 300] } });
    const cols = ['p50_ms', 'p90_ms', 'p95_ms', 'p99_ms', 'p999_ms'];
    const table = async (...extra: string[]) => {
      const out = await runCli('sweep', grid, '--format', 'csv', '--no-progress', ...extra);
      expect(out.code).toBe(0);
      const [header, ...rows] = out.out.trim().split('\n');
      const names = header.split(',');
      for (const c of cols) expect(names).toContain(c);
      return rows.map((row) => Object.fromEntries(names.map((n, i) => [n, row.split(',')[i]])));
    };
    const rows = await table();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // The same scenario solved here gives the policy (the solve is deterministic); its percentiles directly.
      const one = cheapScenario(Number(row.arrivalRate));
      const want = directPercentiles(one, await solveScenario(one, { percentiles: false })).map((v) => v * 1e3);
      expect(cols.map((c) => Number(row[c]))).toEqual(want);
    }
    for (const row of await table('--no-percentiles')) expect(cols.map((c) => row[c])).toEqual(['', '', '', '', '']);
  });
});
