import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateScenario } from '../../src/model/validate.js';
import { MmppTablePolicy } from '../../src/sim/mmpp.js';
import type { SimulationResult } from '../../src/sim/result.js';
import { simulate } from '../../src/sim/simulate.js';
import { policyOf } from '../../src/solve/result.js';
import type { Scenario } from '../../src/model/scenario.js';
import { evaluateScenarioPolicy } from '../../src/solve/evaluateScenario.js';
import { solveScenario } from '../../src/solve/solveScenario.js';
import { specScenario } from '../helpers/scenarios.js';
import { startHarness, type Harness } from '../service/support/harness.js';

const BURSTY: Scenario = {
  ...specScenario(0, 1e-3),
  arrivalProcess: { burst: { meanRate: 2000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } },
};

describe('bursty scenarios over gRPC (real server on 127.0.0.1:0)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ limits: { maxConcurrentSolves: 2, maxBatchSize: 64, maxStates: 5000, maxMessageBytes: 256 * 1024 } });
  });
  afterAll(async () => h?.close());

  it('Solve takes arrivalProcess and returns the per-phase policy of the in-process solve', async () => {
    const remote = await h.client().solve(BURSTY);
    const local = await solveScenario(BURSTY);
    expect(remote.result.averageCost).toBe(local.averageCost);
    expect(remote.result.policy.controlLimit).toBe(local.policy.controlLimit);
    expect(remote.result.policy.phases?.map((p) => p.controlLimit)).toEqual(local.policy.phases!.map((p) => p.controlLimit));
    expect(remote.result.arrivalProcess?.rates).toEqual(local.arrivalProcess!.rates);
    expect(remote.result.phaseFigures?.map((f) => f.batchShare)).toEqual(local.phaseFigures!.map((f) => f.batchShare));
  });

  it('the cache keeps bursty and Poisson traffic with the same mean apart', async () => {
    const client = h.client();
    const bursty = await client.solve(BURSTY);
    const poisson = await client.solve({ ...specScenario(2000, 1e-3) });
    expect(poisson.cached).toBe(false);
    expect(poisson.result.averageCost).not.toBe(bursty.result.averageCost);
    expect(poisson.result.averageCost).toBe((await solveScenario(specScenario(2000, 1e-3))).averageCost);
  });

  it('Evaluate applies a queue-length policy in every phase, under the MMPP', async () => {
    const remote = await h.client().evaluate(BURSTY, 'control-limit:9');
    const local = evaluateScenarioPolicy(BURSTY, 'control-limit:9');
    expect(remote.averageCost).toBe(local.averageCost);
    expect(local.policy.phases!.map((p) => p.controlLimit)).toEqual([9, 9]);
  });

  it('maxStates counts the (S + 1)·M states of a bursty solve, not its levels', async () => {
    // 2,600 levels fit a 5,000-state bound as a Poisson solve; with two phases they are 5,200 states.
    const S = 2599;
    const poisson = await h.client().solve({ ...specScenario(2000, 1e-3), solver: { maxQueue: S } });
    expect(poisson.result.solver.maxQueue).toBe(S);
    await expect(h.client().solve({ ...BURSTY, solver: { maxQueue: S } })).rejects.toMatchObject({
      field: 'scenario.solver.maxQueue',
      reason: expect.stringMatching(/gives 5200 states, above this server's maxStates limit 5000/),
    });
  });

  it('an automatic S past maxStates under MMPP is refused on arrivalProcess, with a mean rate that would fit', async () => {
    // At a mean 3,000 /s the solve settles near S = 3,565 levels: 7,132 states with two phases, over 5,000.
    const heavy: Scenario = { ...BURSTY, arrivalProcess: { burst: { meanRate: 3000, peakToMean: 2.5, meanBurstSeconds: 0.05, meanGapSeconds: 0.2 } } };
    const e = (await h.client().solve(heavy).then(
      () => undefined,
      (x: unknown) => x,
    )) as { field: string; reason: string };
    expect(e).toMatchObject({
      field: 'scenario.arrivalProcess',
      reason: expect.stringMatching(/maxStates = 5000 \(the load or the bursts are too heavy for this server\); a mean arrival rate \(every phase scaled in proportion\) up to about \S+ \/s/),
    });
    const estimate = Number(/up to about (\S+) \/s/.exec(e.reason)![1]);
    expect(estimate).toBeLessThan(3000);
    expect(estimate).toBeGreaterThan(1000);
  });

  it('invalid arrival processes are INVALID_ARGUMENT with the field path', async () => {
    const bad = { ...BURSTY, arrivalProcess: { mmpp: { rates: [1000, 3000], generator: [-5, 5, 0, 0] } } };
    await expect(h.client().solve(bad)).rejects.toMatchObject({ field: 'scenario.arrivalProcess.mmpp.generator' });
  });

  it('Simulate with policy optimal runs the per-phase policy under MMPP arrivals', async () => {
    type SimulateFn = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: SimulationResult) => void) => void;
    const client = h.client();
    const raw = client.raw as unknown as { Simulate: SimulateFn };
    const remote = await new Promise<SimulationResult>((resolve, reject) =>
      raw.Simulate.call(client.raw, { scenario: BURSTY, policy: 'optimal', requests: 50_000, seed: 4 }, new grpc.Metadata(), {}, (e, r) =>
        e ? reject(e) : resolve(r as SimulationResult),
      ),
    );
    const solved = policyOf((await solveScenario(BURSTY)).policy, 32);
    expect(solved.phases).toBe(2);
    const local = simulate(validateScenario(BURSTY).params, new MmppTablePolicy(solved, 'optimal'), { requests: 50_000, seed: 4 });
    expect(remote.arrivals).toBe('mmpp');
    expect(remote.averageCost).toBe(local.averageCost);
    expect(remote.meanBatchSize).toBe(local.meanBatchSize);
  });
});
