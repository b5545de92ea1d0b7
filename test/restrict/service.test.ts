import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import { solveResultFromProto } from '../../src/service/convert/result.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { comparable, startHarness, type Harness } from '../service/support/harness.js';

/** Restrictions cross gRPC (proto Restrictions, BatchSizeRule): the server solves what the library does, and names bad fields. */
describe('restrictions over gRPC (real server on 127.0.0.1:0)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({});
  });
  afterAll(async () => h?.close());

  it('a restricted Solve equals the in-process restricted solve', async () => {
    for (const restrictions of [{ allowedBatchSizes: [1, 2, 4, 8, 16, 32] }, { allowedBatchSizes: [1, 2, 4, 8, 16, 32], batchSizeRule: 'ONLY_ALLOWED' as const }, { maxOngoingRequests: 24 }]) {
      const scenario = { ...specScenario(4000, 1e-3), restrictions };
      const remote = await h.client().solve(scenario);
      const local = await solveScenario(scenario);
      expect(comparable(solveResultFromProto(remote.result))).toEqual(comparable(local));
    }
  });

  it('refuses bad restrictions (INVALID_ARGUMENT, a ScenarioError on the client) naming the field', async () => {
    await expect(h.client().solve({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [8, 64] } })).rejects.toBeInstanceOf(ScenarioError);
    await expect(h.client().solve({ ...specScenario(4000, 1e-3), restrictions: { allowedBatchSizes: [8, 64] } })).rejects.toMatchObject({
      field: 'scenario.restrictions.allowedBatchSizes[1]',
    });
    await expect(h.client().solve({ ...specScenario(4000, 1e-3), restrictions: { maxOngoingRequests: 5 } })).rejects.toMatchObject({
      field: 'scenario.restrictions.maxOngoingRequests',
    });
  });
});
