import { describe, expect, it } from 'vitest';
import { AbortError } from '../../src/model/errors.js';
import { validateScenario } from '../../src/model/validate.js';
import { canonicalKey } from '../../src/service/cache/canonical.js';
import { SolutionCache } from '../../src/service/cache/solutionCache.js';
import type { WorkerPool } from '../../src/service/pool/workerPool.js';
import { SolveCoordinator } from '../../src/service/solving/coordinator.js';
import { solveScenario, solveScenarioDetailed } from '../../src/solve/solveScenario.js';
import { cheapScenario } from '../helpers/latency.js';

/** A pool whose latency job fails as given: a worker lost, or the call's own cancellation. */
function failingPool(error: Error): WorkerPool {
  return { submit: (kind: string) => (kind === 'latency' ? Promise.reject(error) : Promise.reject(new Error(`unexpected job ${kind}`))) } as unknown as WorkerPool;
}
const events = { onCache: () => {}, onShared: () => {}, onSolved: () => {} };

describe('a failed percentile fill-in (SolveBatch and Solve results from the cache or another executor)', () => {
  it('costs the result its percentiles, with the reason, not the call; it is reported; the cache keeps no failure', async () => {
    const scenario = validateScenario(cheapScenario(250));
    const solved = await solveScenarioDetailed(scenario, { percentiles: false });
    const result = solved.result;
    const reported: unknown[] = [];
    const cache = new SolutionCache(8);
    cache.store(scenario, result, solved.warmStart, canonicalKey(scenario));
    const c = new SolveCoordinator(failingPool(new Error('worker 3 exited with code 1')), cache, 5000, events, (e) => reported.push(e));
    const filled = await c.withPercentiles(scenario, result, undefined, { percentiles: true, signal: new AbortController().signal });
    expect(filled.latency).toBeUndefined();
    expect(filled.latencyUnavailable).toBe('the percentile computation failed (worker 3 exited with code 1)');
    expect(filled.policy).toEqual(result.policy);
    expect(filled.averageCostUpper).toBe(result.averageCostUpper);
    // the entry stays as it was: a later call tries again
    expect(cache.get(canonicalKey(scenario))!.result.latencyUnavailable).toBeUndefined();
    expect(reported).toHaveLength(1);
  });

  it('a cancelled call stays cancelled', async () => {
    const scenario = validateScenario(cheapScenario(250));
    const result = await solveScenario(scenario, { percentiles: false });
    const aborted = new AbortController();
    aborted.abort();
    const c = new SolveCoordinator(failingPool(new Error('aborted')), new SolutionCache(8), 5000, events);
    await expect(c.withPercentiles(scenario, result, undefined, { percentiles: true, signal: aborted.signal })).rejects.toThrow('aborted');
    const c2 = new SolveCoordinator(failingPool(new AbortError()), new SolutionCache(8), 5000, events);
    await expect(c2.withPercentiles(scenario, result, undefined, { percentiles: true, signal: new AbortController().signal })).rejects.toBeInstanceOf(AbortError);
  });
});
