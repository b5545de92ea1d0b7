import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { evaluateConfig } from '../../src/plan/export/evaluateConfig.js';
import { exportPolicy } from '../../src/plan/export/exportPolicy.js';
import { readConfig } from '../../src/plan/export/readConfig.js';
import type { ExportTarget } from '../../src/plan/export/targets.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { runCli } from '../helpers/cli.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * evaluate --from-config under the restrictions a file imposes (docs/planning.md §5): TF Serving's
 * allowed_batch_sizes (padded) and a Ray max_ongoing_requests below B restrict the optimum the
 * setting is measured against, as `export` does for a restricted scenario, and the unrestricted gap
 * is reported beside it. Short simulations: the comparisons are on the same seed or paired.
 */
const plain = specScenario(4000, 1e-3);
const cheap = { tuningRequests: 20_000, requests: 100_000, seed: 3 };

describe('evaluate --from-config reads the restriction out of the file', () => {
  const cases: { target: ExportTarget; restrictions: object; file: string }[] = [
    { target: 'tf-serving', restrictions: { allowedBatchSizes: [1, 2, 4, 8, 16, 32] }, file: 'batching_parameters.txt' },
    { target: 'ray-serve', restrictions: { maxOngoingRequests: 28 }, file: 'deployment.py' },
  ];
  for (const c of cases) {
    it(`${c.target}: a restricted export's configuration, evaluated on the plain scenario, is measured as the export measured it`, async () => {
      const restricted = { ...plain, restrictions: c.restrictions };
      const r = await exportPolicy(restricted, c.target, cheap);
      const e = await evaluateConfig(plain, c.target, r.config, c.file, { requests: cheap.requests, seed: cheap.seed });
      // Against the restricted optimum (an independent solve of the scenario with the restriction written in), and the unrestricted one.
      expect(e.restriction).toBeDefined();
      expect(e.optimal.averageCost).toBe((await solveScenario(restricted)).averageCost);
      expect(e.unrestricted?.averageCost).toBe((await solveScenario(plain)).averageCost);
      // The same batcher on the same arrivals as the export's final run: the same figures, both gaps included.
      expect(e.exported).toEqual(r.exported);
      expect(e.optimal).toEqual(r.optimal);
      expect(e.gap).toEqual(r.gap);
      expect(e.unrestricted).toEqual(r.unrestricted);
    });
  }

  it('the two paired gaps differ by what the restriction costs (exact), within their intervals', async () => {
    const text = 'max_batch_size { value: 32 }\nbatch_timeout_micros { value: 2000 }\nnum_batch_threads { value: 1 }\nallowed_batch_sizes: [ 1, 2, 4, 8, 16, 32 ]\n';
    const e = await evaluateConfig(plain, 'tf-serving', text, 'batching_parameters.txt', { requests: 200_000, seed: 4 });
    const u = e.unrestricted!;
    expect(u.restrictionCost).toBeGreaterThan(0);
    // gap(unrestricted) − gap(restricted) estimates g*(restricted) − g*(unrestricted) from the two optimal policies' runs.
    const estimated = u.gap.difference - e.gap.difference;
    expect(Math.abs(estimated - u.restrictionCost)).toBeLessThanOrEqual(Math.hypot(e.optimal.simulated.halfWidth!, u.simulated.halfWidth!));
    expect(u.gap.difference).toBeGreaterThan(e.gap.difference);
  });

  it('imposes nothing where the file does not bind every policy: Ray with max_ongoing_requests ≥ B, TF Serving with a smaller max_batch_size', async () => {
    expect(readConfig('ray-serve', '{"max_batch_size": 32, "batch_wait_timeout_s": 0.004, "max_ongoing_requests": 32}', 'r.json', 32).restrictions).toBeUndefined();
    expect(readConfig('ray-serve', '{"max_batch_size": 32, "max_ongoing_requests": 31}', 'r.json', 32).restrictions).toEqual({ maxOngoingRequests: 31 });
    const small = readConfig('tf-serving', 'max_batch_size { value: 16 }\nallowed_batch_sizes: [ 8, 16 ]\n', 'b', 32);
    expect(small.restrictions).toBeUndefined();
    expect(small.notes).toContain("allowed_batch_sizes up to max_batch_size 16 < the scenario's maxBatchSize 32: the optimum is the unrestricted one (set maxBatchSize 16 in the scenario for the restricted optimum)");
    const e = await evaluateConfig(plain, 'ray-serve', '{"max_batch_size": 32, "batch_wait_timeout_s": 0.004, "max_ongoing_requests": 64}', 'r.json', { requests: 20_000 });
    expect([e.restriction, e.unrestricted]).toEqual([undefined, undefined]);
    expect(e.optimal.averageCost).toBe((await solveScenario(plain)).averageCost);
  });

  it('refuses allowed_batch_sizes that TF Serving would refuse (not increasing), naming the entry', () => {
    expect(() => readConfig('tf-serving', 'max_batch_size { value: 32 }\nallowed_batch_sizes: [ 8, 4, 32 ]\n', 'b', 32)).toThrow(ScenarioError);
    expect(() => readConfig('tf-serving', 'max_batch_size { value: 32 }\nallowed_batch_sizes: [ 8, 8, 32 ]\n', 'b', 32)).toThrow(/b\.allowed_batch_sizes\[1\]: must be a size ≥ 1 above the one before it/);
  });

  it('the CLI reports the restriction and both gaps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'batchwise-restricted-config-'));
    const scen = join(dir, 's.json');
    const conf = join(dir, 'batching_parameters.txt');
    writeFileSync(scen, JSON.stringify(plain));
    writeFileSync(conf, 'max_batch_size { value: 32 }\nbatch_timeout_micros { value: 2000 }\nallowed_batch_sizes: [ 1, 2, 4, 8, 16, 32 ]\n');
    const r = await runCli('evaluate', scen, '--from-config', conf, '--to', 'tf-serving', '--requests', '20000');
    expect(r.code).toBe(0);
    expect(r.out).toContain('  restriction: batch sizes padded up to 1, 2, 4, 8, 16, 32\n');
    expect(r.out).toMatch(/^ {2}restricted optimum \(control limit \d+\): exact cost /m);
    expect(r.out).toMatch(/^ {2}gap to the restricted optimum: -?\d+\.\d{3} % ± \d+\.\d{3} % \(paired/m);
    expect(r.out).toMatch(/^ {2}gap to the unrestricted optimum: -?\d+\.\d{3} % ± \d+\.\d{3} % \(cost /m);
  });
});
