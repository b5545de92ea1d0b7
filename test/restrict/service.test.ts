import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/errors.js';
import type { ExportResult } from '../../src/plan/export/exportPolicy.js';
import type { SimulatedCost } from '../../src/plan/export/sideBySide.js';
import { planningRequest } from '../../src/plan/request.js';
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

  it('a restricted Export returns `unrestricted` and the setting\'s allowed sizes, equal to the in-process export', async () => {
    type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: unknown) => void) => grpc.ClientUnaryCall;
    const client = h.client();
    const exportCall = (request: unknown): Promise<ExportResult> =>
      new Promise((resolve, reject) => {
        const raw = client.raw as unknown as Record<string, Unary>;
        raw.Export.call(client.raw, request, new grpc.Metadata(), {}, (e, r) => (e ? reject(e) : resolve(r as ExportResult)));
      });
    // The fields the proto carries (SimulatedCost, ExportGap, ExportUnrestricted), read the same way from both sides.
    const cost = (c: SimulatedCost) => ({ averageCost: c.averageCost, halfWidth: c.halfWidth, meanResponseTime: c.meanResponseTime, meanPower: c.meanPower, p99: c.p99, requests: c.requests, seed: c.seed });
    const gap = (g: ExportResult['gap']) => ({ difference: g.difference, halfWidth: g.halfWidth, relative: g.relative, vsExact: g.vsExact });
    const unrestricted = (u: ExportResult['unrestricted']) =>
      u ? { averageCost: u.averageCost, controlLimit: u.controlLimit, restrictionCost: u.restrictionCost, simulated: cost(u.simulated), gap: gap(u.gap) } : u;
    const cases = [
      { target: 'tf-serving', restrictions: { allowedBatchSizes: [1, 2, 4, 8, 16, 32] } },
      { target: 'ray-serve', restrictions: { maxOngoingRequests: 28 } },
    ];
    for (const { target, restrictions } of cases) {
      const req = { scenario: { ...specScenario(4000, 1e-3), restrictions }, target, requests: 30_000, tuningRequests: 10_000, seed: 2 };
      const remote = await exportCall(req);
      const local = await planningRequest('export', req);
      expect(local.unrestricted, target).toBeDefined();
      expect(unrestricted(remote.unrestricted), target).toEqual(unrestricted(local.unrestricted));
      expect(remote.unrestricted!.restrictionCost, target).toBeGreaterThanOrEqual(0);
      // The setting as the proto carries it: allowed sizes for TF Serving (none for Ray, an empty repeated field), the cap for Ray.
      expect(remote.setting.allowedBatchSizes, target).toEqual(local.setting.allowedBatchSizes ?? []);
      if ('allowedBatchSizes' in restrictions) expect(remote.setting.allowedBatchSizes).toEqual(restrictions.allowedBatchSizes);
      else expect(remote.setting.maxOngoingRequests).toBe(restrictions.maxOngoingRequests);
      expect(remote.setting.maxOngoingRequests ?? undefined, target).toEqual(local.setting.maxOngoingRequests);
      expect([remote.config, remote.setting.delay, remote.setting.maxBatchSize], target).toEqual([local.config, local.setting.delay, local.setting.maxBatchSize]);
      expect([gap(remote.gap), cost(remote.exported), remote.optimal.averageCost], target).toEqual([gap(local.gap), cost(local.exported), local.optimal.averageCost]);
    }
    // Without restrictions the message carries no `unrestricted` (the client decodes an absent message as null).
    const plain = await exportCall({ scenario: specScenario(4000, 1e-3), target: 'tf-serving', requests: 30_000, tuningRequests: 10_000, seed: 2 });
    expect(plain.unrestricted ?? undefined).toBeUndefined();
    expect(plain.setting.allowedBatchSizes).toEqual([]);
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
