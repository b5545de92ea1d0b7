import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { exportPolicy } from '../../src/plan/export/exportPolicy.js';
import { readConfig } from '../../src/plan/export/readConfig.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';

/**
 * Export under scenario restrictions (docs/model.md §11.1, docs/planning.md): the setting runs the
 * restriction (TF Serving pads to allowed_batch_sizes, Ray Serve's max_ongoing_requests is the
 * cap), its gap is reported against the restricted optimum and the unrestricted one, and a
 * restriction the target cannot run is refused. Short simulations: the checks are paired.
 */
const SIZES = [1, 2, 4, 8, 16, 32];
const cheap = { tuningRequests: 20_000, requests: 100_000 };

describe('export with restrictions', () => {
  it('tf-serving with allowed sizes: padded setting, gaps against both optima', async () => {
    const scenario = { ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [32, 16, 8, 4, 2, 1] } };
    const r = await exportPolicy(scenario, 'tf-serving', cheap);
    expect(r.setting.allowedBatchSizes).toEqual(SIZES);
    // The configuration reads back as the padded batcher it was tuned on.
    expect(readConfig('tf-serving', r.config, 'batching_parameters.txt', 32).policy.name).toContain('allowed_batch_sizes=1|2|4|8|16|32');
    // Optimal = the restricted optimum; unrestricted = the plain scenario's, solved independently.
    const restricted = await solveScenario(scenario);
    const plain = await solveScenario(specScenario(4000, 1e-3));
    expect(r.optimal.averageCost).toBe(restricted.averageCost);
    const u = r.unrestricted!;
    expect(u.averageCost).toBe(plain.averageCost);
    expect(u.restrictionCost).toBeCloseTo(restricted.averageCost - plain.averageCost, 15);
    expect(u.restrictionCost).toBeGreaterThan(0);
    // No padded setting beats the restricted optimum beyond its paired interval, and the gap to the
    // unrestricted optimum carries the restriction's cost: it exceeds the restricted gap.
    expect(r.gap.difference + 2 * (r.gap.halfWidth ?? Infinity)).toBeGreaterThan(0);
    expect(u.gap.difference - 2 * (u.gap.halfWidth ?? Infinity)).toBeGreaterThan(0);
    expect(u.gap.difference).toBeGreaterThan(r.gap.difference);
  });

  it('ray-serve with a cap: max_ongoing_requests and max_batch_size are the cap', async () => {
    const scenario = { ...specScenario(4000, 1e-3), restrictions: { maxOngoingRequests: 28 } };
    const r = await exportPolicy(scenario, 'ray-serve', cheap);
    expect(r.setting.maxOngoingRequests).toBe(28);
    expect(r.setting.maxBatchSize).toBe(28);
    expect(r.config).toContain('max_ongoing_requests=28');
    expect(r.unrestricted?.restrictionCost).toBeGreaterThan(0);
  });

  it('refuses a restriction the target cannot run, before any simulation', async () => {
    const refused = async (target: 'triton' | 'tf-serving' | 'torchserve', restrictions: object): Promise<string> => {
      try {
        await exportPolicy({ ...specScenario(4000, 1e-3), restrictions }, target, cheap);
      } catch (e) {
        if (e instanceof ScenarioError) return e.field;
        throw e;
      }
      throw new Error('expected a refusal');
    };
    expect(await refused('triton', { allowedBatchSizes: SIZES })).toBe('restrictions.allowedBatchSizes');
    expect(await refused('tf-serving', { allowedBatchSizes: SIZES, batchSizeRule: 'ONLY_ALLOWED' })).toBe('restrictions.batchSizeRule');
    expect(await refused('tf-serving', { maxOngoingRequests: 28 })).toBe('restrictions.maxOngoingRequests');
    expect(await refused('torchserve', { maxOngoingRequests: 28 })).toBe('restrictions.maxOngoingRequests');
  });
});

describe('merging a padded setting into batching_parameters.txt', () => {
  it('writes the allowed sizes as one list in place of the file’s, and a second merge changes nothing', async () => {
    const { readFileSync } = await import('node:fs');
    const { mergeConfig } = await import('../../src/plan/export/merge.js');
    const file = 'test/fixtures/export/batching_parameters.txt';
    const text = readFileSync(file, 'utf8');
    const setting = { target: 'tf-serving' as const, maxBatchSize: 32, delay: 0.0025, preferredBatchSizes: [], allowedBatchSizes: SIZES };
    const once = mergeConfig(setting, text, file, { maxEnqueuedBatches: 12 });
    expect(once.text.match(/allowed_batch_sizes/g)).toHaveLength(1);
    expect(once.text).toContain('allowed_batch_sizes: [ 1, 2, 4, 8, 16, 32 ]');
    expect(readConfig('tf-serving', once.text, file, 32).policy.name).toContain('allowed_batch_sizes=1|2|4|8|16|32');
    const twice = mergeConfig(setting, once.text, file, { maxEnqueuedBatches: 12 });
    expect(twice.text).toBe(once.text);
    expect(twice.notes).toContain('unchanged: allowed_batch_sizes [ 1, 2, 4, 8, 16, 32 ]');
  });
});
